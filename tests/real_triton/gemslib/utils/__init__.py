from gemslib.utils.entry import libentry
from gemslib.utils.shim_select import shim

__all__ = ["libentry", "shim"]
