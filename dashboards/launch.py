"""Starting the dashboard: ``governor dashboard [--db FILE] [--port N] [--headless]``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
APP = HERE / "app.py"
#: What ``streamlit run`` starts: the app on Streamlit's server with the Replay page's first paint.
SERVER = HERE / "server.py"
#: Upload limit of the Import page in MB (also in .streamlit/config.toml, which streamlit reads from
#: the folder it starts in).
MAX_UPLOAD_MB = 50


def streamlit_command(db: str, port: int, headless: bool) -> list[str]:
    """The ``streamlit run`` command line of the dashboard on ``db``."""
    return [
        sys.executable, "-m", "streamlit", "run", str(SERVER),
        "--server.port", str(port),
        "--server.headless", "true" if headless else "false",
        # A first run would otherwise stop at streamlit's e-mail prompt (and fail without a terminal).
        "--server.showEmailPrompt", "false",
        "--server.maxUploadSize", str(MAX_UPLOAD_MB),
        "--server.fileWatcherType", "none",
        # An error on a page shows one line of its own, never a traceback with the server's paths.
        "--client.showErrorDetails", "none",
        "--browser.gatherUsageStats", "false",
        "--", "--db", db,
    ]


def server_environment(db: str) -> dict[str, str]:
    """The environment the server runs in: the database, and this very code first on the import path,
    so that the server runs the checkout (or installation) the command came from, not whichever one an
    editable install points at."""
    code = str(HERE.parent)
    paths = [code, *(p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p and p != code)]
    return dict(os.environ, GOVERNOR_DB=db, PYTHONPATH=os.pathsep.join(paths))


def launch(db: str, port: int = 8501, headless: bool = False) -> int:
    """Run the dashboard on ``db`` until it is stopped; returns streamlit's exit status.

    A missing database is not an error: the Import page can create it."""
    db = str(Path(db).expanduser().resolve())
    if not Path(db).exists():
        print(f"governor dashboard: {db} does not exist yet; import logs on the Import page", file=sys.stderr)
    env = server_environment(db)
    command = streamlit_command(db, port, headless)
    print(f"governor dashboard: http://localhost:{port} on {db}", file=sys.stderr, flush=True)
    if hasattr(os, "execve"):
        # Become streamlit, so stopping this process stops the server (no orphan left behind).
        os.chdir(HERE)
        os.execve(sys.executable, command, env)
    try:
        return subprocess.call(command, cwd=HERE, env=env)
    except KeyboardInterrupt:
        return 130
