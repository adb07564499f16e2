"""A stopped rank does not make the others wait forever: with --timeout S (or
TENPORT_COMM_TIMEOUT) a rank that waits longer than S seconds in one collective ends every
rank, with a message naming the collective."""
import time

import pytest

from conftest import built_with_mpi, err, mpirun, out, planted_dense, run

pytestmark = pytest.mark.skipif(not built_with_mpi(), reason="built without MPI")

STOP_RANK_1 = ('if [ "$OMPI_COMM_WORLD_RANK" = 1 ]; then (sleep 1; kill -STOP $$) & fi; '
               'exec "$0" cp-als -i big.npy -r 3 --max-iters 100000000 --tol 0 -q')


@pytest.mark.parametrize("how", ["option", "environment"])
def test_a_stopped_rank_ends_the_run(work, how):
    planted_dense("big.npy", (60, 50, 40))
    start = time.monotonic()
    if how == "option":
        r = mpirun(2, shell=STOP_RANK_1 + " --timeout 2", timeout=90)
    else:
        r = mpirun(2, shell=STOP_RANK_1, timeout=90, TENPORT_COMM_TIMEOUT="2")
    assert r.returncode != 0
    assert "has waited more than 2 s" in err(r) + out(r)
    assert time.monotonic() - start < 60


def test_a_bad_time_limit_is_refused(work):
    planted_dense("d.npy", (4, 5, 6))
    r = run("cp-als", "-i", "d.npy", "-r", "2", "--timeout", "-1")
    assert r.returncode == 2
    assert "--timeout '-1'" in err(r)
