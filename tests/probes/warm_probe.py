"""A child for tests/test_warm_worker.py: reports what it sees, changes state a later child
must not see, and (mode "hang") starts a grandchild and waits forever.

    python -m tests.probes.warm_probe IN OUT    (IN: a JSON request, OUT: where the report goes)
"""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from porter.verify import warm

request = json.loads(Path(sys.argv[1]).read_text())
seen = getattr(warm, "_probe_mark", None)
warm._probe_mark = request["mark"]  # a later child of the same worker must not see this
report = {"pid": os.getpid(), "session": os.getsid(0), "seen": seen, "cwd": os.getcwd(),
          "path": sys.path, "warm": "tilelang" in sys.modules, "env": os.environ.get("PROBE_VALUE")}
if request.get("mode") == "hang":
    sleeper = subprocess.Popen(["sleep", "120"])
    report["grandchild"] = sleeper.pid
    with open(sys.argv[2], "w") as f:
        json.dump(report, f)
    time.sleep(120)
with open(sys.argv[2], "w") as f:
    json.dump(report, f)
