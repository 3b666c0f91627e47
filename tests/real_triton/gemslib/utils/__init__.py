from gemslib.utils.entry import libentry, libtuner
from gemslib.utils.shim_select import shim

__all__ = ["libentry", "libtuner", "shim"]
