"""A new local Dask cluster (`--executor dask` without `--scheduler`) is the command's alone.

Its workers receive a private campaign's seed and salt with every task. Its scheduler
listened on loopback with no credentials: any process of any user on the machine (an
agent beside a stdio host, say) connected while an operator validated, and ran its own
code in those workers. A real LocalCluster and a real outside client in another process.
"""

from __future__ import annotations

import subprocess
import sys

from workbench.evaluation.executors import DaskExecutor, ExecutorSpec, open_executor

OUTSIDER = """
import sys
from distributed import Client
try:
    client = Client(sys.argv[1], timeout=15)
    ran = client.submit(lambda: "ran in the cluster", pure=False).result(timeout=30)
except Exception as exc:
    print("refused:", type(exc).__name__)
else:
    print(ran)
"""


def _outsider(address: str) -> str:
    """What a client of another process, holding no credentials, gets at `address`."""
    done = subprocess.run(
        [sys.executable, "-c", OUTSIDER, address],
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    return done.stdout.strip()


def test_a_local_cluster_refuses_a_client_of_another_process() -> None:
    with open_executor(ExecutorSpec("dask", workers=1)) as executor:
        assert isinstance(executor, DaskExecutor) and executor._client is not None
        address = str(executor._client.scheduler.address)
        host_port = address.split("://", 1)[1]
        for tried in {address, f"tcp://{host_port}", f"tls://{host_port}"}:
            answer = _outsider(tried)
            assert answer.startswith("refused:"), (tried, answer)
        assert [outcome.value for outcome in executor.map(abs, [-1, -2])] == [1, 2]
