"""A real one-node Slurm cluster on 127.0.0.1 for the tests (Debian's slurm-wlm and munge): munged
with its own key and socket, slurmctld and slurmd on free ports, everything in one temporary folder,
started and stopped by the test.  `Cluster.sbatch(script)` submits and returns the job id;
`wait(job)` waits until no task of it is pending or running.  Needs root (slurmd runs jobs as
their user) and the binaries; `missing()` says why it cannot run, for a skip that names it."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

BINARIES = ("munged", "slurmctld", "slurmd", "sbatch", "squeue", "scancel", "scontrol")

CONF = """ClusterName=jtau
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort={ctld_port}
SlurmdPort={d_port}
AuthType=auth/munge
AuthInfo=socket={root}/munge/munge.socket
CredType=cred/munge
StateSaveLocation={root}/state
SlurmdSpoolDir={root}/spool
SlurmctldPidFile={root}/slurmctld.pid
SlurmdPidFile={root}/slurmd.pid
SlurmctldLogFile={root}/slurmctld.log
SlurmdLogFile={root}/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
ReturnToService=2
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmUser=root
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
NodeName=localhost NodeAddr=127.0.0.1 CPUs={cpus} State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
"""


def missing() -> str | None:
    """Why no cluster can run here (None: it can)."""
    absent = [b for b in BINARIES if shutil.which(b) is None]
    if absent:
        return f"no Slurm here ({', '.join(absent)} missing): apt-get install slurm-wlm munge (.ci/run does)"
    if os.geteuid() != 0:
        return "the test cluster's slurmd runs as root"
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    def __init__(self, root: Path):
        self.root = root

    @property
    def env(self) -> dict:
        """The caller's environment now (a job inherits it, as sbatch's --export=ALL does) with the conf."""
        return {**os.environ, "SLURM_CONF": str(self.root / "slurm.conf")}

    def start(self) -> "Cluster":
        root = self.root
        for sub in ("state", "spool", "munge"):
            (root / sub).mkdir(parents=True, exist_ok=True)
        (root / "munge").chmod(0o700)
        key = root / "munge" / "munge.key"
        key.write_bytes(os.urandom(1024))
        key.chmod(0o600)
        (root / "slurm.conf").write_text(CONF.format(root=root, ctld_port=_free_port(), d_port=_free_port(),
                                                     cpus=os.cpu_count() or 1))
        subprocess.run(["munged", f"--socket={root}/munge/munge.socket", f"--key-file={key}",
                        f"--pid-file={root}/munge/munged.pid", f"--log-file={root}/munge/munged.log",
                        f"--seed-file={root}/munge/seed", "--force"], check=True, env=self.env)
        subprocess.run(["slurmctld", "-f", str(root / "slurm.conf")], check=True, env=self.env)
        subprocess.run(["slurmd", "-f", str(root / "slurm.conf"), "-N", "localhost"], check=True, env=self.env)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            state = subprocess.run(["sinfo", "-h", "-o", "%T"], capture_output=True, text=True, env=self.env)
            if state.returncode == 0 and state.stdout.strip() in ("idle", "mixed", "allocated"):
                return self
            time.sleep(0.5)
        raise RuntimeError(f"the test Slurm cluster did not come up: {self.logs()}")

    def logs(self) -> str:
        return "\n".join(p.read_text(errors="replace")[-2000:] for p in (self.root / "slurmctld.log",
                                                                         self.root / "slurmd.log") if p.exists())

    def sbatch(self, *args: str) -> str:
        done = subprocess.run(["sbatch", "--parsable", *args], capture_output=True, text=True, env=self.env, check=True)
        return done.stdout.strip().split(";")[0]

    def tasks(self, job: str) -> list[str]:
        """The states of the job's tasks still known to squeue (pending or running)."""
        done = subprocess.run(["squeue", "-h", "-j", job, "-o", "%T"], capture_output=True, text=True, env=self.env)
        return done.stdout.split() if done.returncode == 0 else []

    def wait(self, job: str, timeout: float = 600) -> None:
        deadline = time.monotonic() + timeout
        while self.tasks(job):
            if time.monotonic() > deadline:
                raise TimeoutError(f"Slurm job {job} still running after {timeout:.0f} s: {self.logs()}")
            time.sleep(0.5)

    def cancel(self, job: str) -> None:
        subprocess.run(["scancel", "--signal=KILL", job], check=True, env=self.env)

    def stop(self) -> None:
        subprocess.run(["scontrol", "shutdown"], env=self.env, capture_output=True)
        for name in ("slurmd.pid", "slurmctld.pid", "munge/munged.pid"):
            pid = self.root / name
            if pid.exists():
                try:
                    os.kill(int(pid.read_text().strip()), 15)
                except (ValueError, ProcessLookupError):
                    pass
