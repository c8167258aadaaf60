"""The executors that run a command's tasks: a local Dask cluster keeps to itself."""

from __future__ import annotations

import operator
import socket
import warnings

import pytest

from ingest import executors


def test_a_local_dask_cluster_opens_no_port_another_cluster_holds() -> None:
    """The scheduler's HTTP server takes a free local port: with 8787 (Dask's default, the port of
    another local cluster) held, no "port already in use" warning and the tasks run (it used to
    warn at every import or analysis on a local cluster beside another)."""
    pytest.importorskip("distributed", reason="missing optional dependency: the cluster extra (distributed)")
    holder = socket.socket()
    try:
        try:
            holder.bind(("127.0.0.1", 8787))
            holder.listen()
        except OSError:
            pass  # held already: the case this test is about
        with warnings.catch_warnings():
            warnings.simplefilter("error", UserWarning)
            with executors.dask(10, None, 1, 1) as run:
                assert list(run(operator.add, iter(range(4)))) == [10, 11, 12, 13]
    finally:
        holder.close()
