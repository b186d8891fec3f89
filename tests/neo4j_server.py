"""A throwaway Neo4j 5 server for the test suite, built from Maven Central.

The server is ``tools/neo4j-launcher``: a tiny Java program around Neo4j's
in-process test harness (``org.neo4j.test:neo4j-harness``, Community edition).
This module builds it once with Maven, caches the result, and runs it as a
child process bound to a free port on 127.0.0.1 with authentication disabled.

Only the standard library is needed; the ``neo4j`` driver is imported lazily,
if installed, for an extra readiness check.

Typical use from a pytest session fixture::

    from neo4j_server import Neo4jServer, Neo4jUnavailable  # tests/ is on sys.path

    @pytest.fixture(scope="session")
    def neo4j_uri():
        try:
            server = Neo4jServer().start()
        except Neo4jUnavailable as exc:
            if os.environ.get("CI") == "true":
                pytest.fail(f"Neo4j test server unavailable: {exc.reason}")
            pytest.skip(f"Neo4j test server unavailable: {exc.reason}")
        yield server.uri
        server.stop()

Run ``python tests/neo4j_server.py`` to build and start a server by hand; it
prints the Bolt URI and runs until Ctrl-C or stdin closes. With
``--build-only`` it just builds (or finds) the cached launcher, e.g. as a CI
step before pytest so the Maven download is not charged to a test's timeout.

Environment variables (all optional):

* ``EBBTIDE_CACHE_DIR``: cache root (default ``$XDG_CACHE_HOME/ebbtide`` or
  ``~/.cache/ebbtide``); the launcher lives in ``neo4j-launcher/<hash>/``.
* ``EBBTIDE_NEO4J_HEAP``: default JVM heap, e.g. ``768m`` (default ``512m``).
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import hashlib
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterable, Sequence
from pathlib import Path

__all__ = [
    "LAUNCHER_DIR",
    "Neo4jServer",
    "Neo4jUnavailable",
    "ensure_launcher_built",
    "launcher_cache_dir",
]

REPO_ROOT = Path(__file__).resolve().parent.parent
LAUNCHER_DIR = REPO_ROOT / "tools" / "neo4j-launcher"

# Bump when the way the launcher is built or laid out in the cache changes.
_RECIPE_VERSION = "1"
_BUILD_TIMEOUT_S = 1800.0
_BOLT_PREFIX = "BOLT "

# JVM flags used for every start. Add-opens mirror Neo4j's own launch scripts
# (the jar manifest carries them too); the rest trade peak JIT speed for a
# faster start, which is the right trade for short test runs.
_BASE_JVM_FLAGS: tuple[str, ...] = (
    "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED",
    "--add-opens=java.base/java.lang=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
    "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
    "-Dio.netty.tryReflectionSetAccessible=true",
    "-Djava.awt.headless=true",
    # JVM unified logging (e.g. CDS "Skipping ... Signed JAR" warnings) defaults
    # to stdout, which is our protocol pipe: send it to stderr (the log file).
    "-Xlog:disable",
    "-Xlog:all=warning:stderr:uptime,level,tags",
)
DEFAULT_FAST_START_FLAGS: tuple[str, ...] = (
    "-XX:TieredStopAtLevel=1",
    "-XX:+UseSerialGC",
    "-XX:-UsePerfData",
)


class Neo4jUnavailable(RuntimeError):
    """The Neo4j test server cannot be built or started; ``reason`` says why."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


# --------------------------------------------------------------------------
# Building and caching the launcher
# --------------------------------------------------------------------------


def _cache_root() -> Path:
    env = os.environ.get("EBBTIDE_CACHE_DIR")
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "ebbtide"


def _launcher_sources(launcher_dir: Path) -> list[Path]:
    files = [launcher_dir / "pom.xml"]
    src = launcher_dir / "src"
    if src.is_dir():
        files += sorted(p for p in src.rglob("*") if p.is_file())
    return files


def _source_hash(launcher_dir: Path) -> str:
    h = hashlib.sha256(f"recipe={_RECIPE_VERSION}\n".encode())
    for path in _launcher_sources(launcher_dir):
        if not path.is_file():
            raise Neo4jUnavailable(f"launcher source missing: {path}")
        h.update(path.relative_to(launcher_dir).as_posix().encode() + b"\0")
        h.update(path.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def launcher_cache_dir(launcher_dir: Path = LAUNCHER_DIR) -> Path:
    """Directory that holds (or will hold) the built launcher for the current sources."""
    return _cache_root() / "neo4j-launcher" / _source_hash(launcher_dir)


def _tail(text: str, lines: int = 40) -> str:
    return "\n".join(text.rstrip().splitlines()[-lines:])


def _require_tool(name: str) -> str:
    path = shutil.which(name)
    if not path:
        raise Neo4jUnavailable(f"`{name}` not found on PATH (needed for the Neo4j test server)")
    return path


def _run_maven(mvn: str, project: Path, extra: Sequence[str]) -> subprocess.CompletedProcess:
    cmd = [mvn, "-q", "-B", "-Dstyle.color=never", *extra, "package"]
    try:
        return subprocess.run(
            cmd,
            cwd=project,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            errors="replace",
            timeout=_BUILD_TIMEOUT_S,
        )
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout or ""
        if isinstance(out, bytes):
            out = out.decode(errors="replace")
        raise Neo4jUnavailable(
            f"`{' '.join(cmd)}` timed out after {_BUILD_TIMEOUT_S:.0f} s\n{_tail(out)}"
        ) from None


def ensure_launcher_built(launcher_dir: Path = LAUNCHER_DIR) -> Path:
    """Return the path of the runnable launcher jar, building it first if needed.

    The build runs ``mvn -q -B package`` on a temporary copy of
    ``tools/neo4j-launcher`` (the work tree is not touched) and stores
    ``launcher.jar`` plus its ``lib/`` folder under
    ``<cache>/neo4j-launcher/<hash of pom.xml and sources>/``; later calls
    return the cached jar without running Maven. Safe to call from several
    processes at once (a file lock serialises builds).

    Raises ``Neo4jUnavailable`` if java or mvn is missing or the build fails
    (the message ends with the tail of Maven's output).
    """
    launcher_dir = Path(launcher_dir)
    final = launcher_cache_dir(launcher_dir)
    jar = final / "launcher.jar"
    if (final / ".complete").is_file() and jar.is_file():
        return jar

    _require_tool("java")
    mvn = _require_tool("mvn")

    final.parent.mkdir(parents=True, exist_ok=True)
    with open(final.parent / ".build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (final / ".complete").is_file() and jar.is_file():
            return jar
        with tempfile.TemporaryDirectory(prefix="ebbtide-neo4j-build-") as tmp:
            project = Path(tmp) / "neo4j-launcher"
            shutil.copytree(launcher_dir, project, ignore=shutil.ignore_patterns("target", ".*"))
            result = _run_maven(mvn, project, [])
            if result.returncode != 0:
                # Dependencies may already be in ~/.m2 while the network is down.
                offline = _run_maven(mvn, project, ["-o"])
                if offline.returncode != 0:
                    raise Neo4jUnavailable(
                        f"building {launcher_dir} with `mvn -q -B package` failed "
                        f"(exit {result.returncode}; offline retry exit {offline.returncode}):\n"
                        f"{_tail(result.stdout)}"
                    )
            target = project / "target"
            if not (target / "launcher.jar").is_file() or not (target / "lib").is_dir():
                raise Neo4jUnavailable(
                    f"Maven succeeded but produced no target/launcher.jar and target/lib/\n"
                    f"{_tail(result.stdout)}"
                )
            staging = Path(tempfile.mkdtemp(prefix=final.name + ".tmp-", dir=final.parent))
            try:
                shutil.copy2(target / "launcher.jar", staging / "launcher.jar")
                shutil.copytree(target / "lib", staging / "lib")
                (staging / ".complete").write_text(f"built {time.strftime('%Y-%m-%dT%H:%M:%S')}\n")
                if final.exists():  # a half-finished leftover without .complete
                    shutil.rmtree(final, ignore_errors=True)
                os.replace(staging, final)
            except BaseException:
                shutil.rmtree(staging, ignore_errors=True)
                raise
    return jar


# --------------------------------------------------------------------------
# Running the server
# --------------------------------------------------------------------------

_live_servers: set[Neo4jServer] = set()
_live_lock = threading.Lock()


def _stop_all_at_exit() -> None:
    with _live_lock:
        servers = list(_live_servers)
    for server in servers:
        with contextlib.suppress(Exception):
            server.stop(timeout=15.0)


atexit.register(_stop_all_at_exit)


def _java_fingerprint(java: str) -> str:
    real = os.path.realpath(java)
    try:
        st = os.stat(real)
        ident = f"{real}:{st.st_size}:{int(st.st_mtime)}"
    except OSError:
        ident = real
    return hashlib.sha256(ident.encode()).hexdigest()[:12]


class Neo4jServer:
    """A Neo4j 5 Community server in a child JVM, Bolt on 127.0.0.1, no auth.

    ``start()`` blocks until the server accepts Bolt connections (or raises
    ``Neo4jUnavailable``); ``uri`` is then e.g. ``bolt://127.0.0.1:41281``.
    ``stop()`` shuts it down and deletes its data. Usable as a context
    manager. The child also exits by itself when this process dies (it watches
    its stdin pipe), and ``atexit`` stops any server still running.

    Arguments:
      heap: JVM ``-Xmx`` value (default ``$EBBTIDE_NEO4J_HEAP`` or ``512m``).
      jvm_args: extra JVM flags, appended after the defaults.
      fast_start: add ``-XX:TieredStopAtLevel=1 -XX:+UseSerialGC`` (quicker
        start, slower peak execution).
      class_data_sharing: keep an AppCDS archive next to the cached jar; the
        first run writes it at exit, later runs start several seconds faster.
      startup_timeout: seconds to wait for the server to come up.
      log_path: where the JVM's stderr (launcher and Neo4j noise) goes; kept
        after ``stop()``. By default a file in the server's temporary
        directory, deleted on a clean stop. Neo4j's own ``debug.log`` and
        ``neo4j.log`` live in that temporary directory too.
      jar: a prebuilt launcher jar; default ``ensure_launcher_built()``.
      verify: after start, also check connectivity with the ``neo4j`` driver
        if it is installed.
    """

    def __init__(
        self,
        *,
        heap: str | None = None,
        jvm_args: Iterable[str] = (),
        fast_start: bool = True,
        class_data_sharing: bool = True,
        startup_timeout: float = 120.0,
        log_path: os.PathLike | str | None = None,
        jar: os.PathLike | str | None = None,
        verify: bool = True,
    ) -> None:
        self.heap = heap or os.environ.get("EBBTIDE_NEO4J_HEAP") or "512m"
        self.jvm_args = list(jvm_args)
        self.fast_start = fast_start
        self.class_data_sharing = class_data_sharing
        self.startup_timeout = startup_timeout
        self.log_path: Path | None = Path(log_path) if log_path else None
        self._user_log_path = self.log_path is not None
        self._jar = Path(jar) if jar else None
        self.verify = verify

        self.uri: str | None = None
        self.host: str | None = None
        self.port: int | None = None
        self.workdir: Path | None = None
        self.startup_seconds: float | None = None
        self._proc: subprocess.Popen | None = None
        self._log_file = None
        self._cds_pending: tuple[Path, Path] | None = None
        self._drain_thread: threading.Thread | None = None

    # -- public API ---------------------------------------------------------

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc else None

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def start(self) -> Neo4jServer:
        """Build (if needed) and start the server; return self once Bolt is up."""
        if self._proc is not None:
            raise RuntimeError("Neo4jServer already started")
        java = _require_tool("java")
        jar = self._jar or ensure_launcher_built()
        if not jar.is_file():
            raise Neo4jUnavailable(f"launcher jar not found: {jar}")

        t0 = time.monotonic()
        self.workdir = Path(tempfile.mkdtemp(prefix="ebbtide-neo4j-"))
        if not self._user_log_path:
            self.log_path = self.workdir / "launcher.log"
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        self._log_file = open(self.log_path, "ab")  # noqa: SIM115 - closed in stop()

        cmd = [java, f"-Xmx{self.heap}", *_BASE_JVM_FLAGS]
        if self.fast_start:
            cmd += DEFAULT_FAST_START_FLAGS
        cmd += self._cds_flags(java, jar)
        cmd += self.jvm_args
        cmd += ["-jar", str(jar), "--work-dir", str(self.workdir / "db")]

        try:
            self._proc = subprocess.Popen(
                cmd,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._log_file,
                start_new_session=True,  # terminal Ctrl-C is handled by us, not the JVM
            )
        except OSError as exc:
            self._cleanup_files(keep_log=False)
            raise Neo4jUnavailable(f"could not run java: {exc}") from None
        with _live_lock:
            _live_servers.add(self)

        try:
            line, rest = self._wait_for_bolt_line(t0 + self.startup_timeout)
            self._start_stdout_drain(rest)
            self.uri = line[len(_BOLT_PREFIX) :].strip()
            hostport = self.uri.split("://", 1)[1]
            host, _, port = hostport.rpartition(":")
            self.host, self.port = host, int(port)
            if self.verify:
                self._verify_with_driver(t0 + self.startup_timeout)
        except BaseException:
            self.stop(timeout=15.0, keep_log=True)
            raise
        self.startup_seconds = time.monotonic() - t0
        return self

    def stop(self, timeout: float = 60.0, *, keep_log: bool | None = None) -> int | None:
        """Shut the server down (stdin EOF, then SIGTERM, then SIGKILL) and delete its data.

        Returns the JVM's exit code, or None if it was not running. Idempotent.
        """
        proc = self._proc
        if proc is None:
            return None
        rc: int | None = proc.poll()
        if rc is None:
            with contextlib.suppress(OSError):
                proc.stdin.close()  # the launcher's graceful-shutdown signal
            rc = self._wait(proc, timeout)
            if rc is None:
                with contextlib.suppress(ProcessLookupError):
                    proc.send_signal(signal.SIGTERM)
                rc = self._wait(proc, 15.0)
            if rc is None:
                with contextlib.suppress(ProcessLookupError):
                    proc.kill()
                rc = proc.wait()
        with contextlib.suppress(OSError):
            if proc.stdin:
                proc.stdin.close()
        drain = self._drain_thread
        self._drain_thread = None
        if drain is not None:
            drain.join(timeout=5.0)  # ends at EOF, i.e. once the JVM is gone
        with contextlib.suppress(OSError):
            if proc.stdout:
                proc.stdout.close()
        with _live_lock:
            _live_servers.discard(self)
        self._proc = None
        self._finish_cds(rc == 0)
        if keep_log is None:
            keep_log = self._user_log_path or rc != 0
        self._cleanup_files(keep_log=keep_log)
        return rc

    def log_tail(self, lines: int = 40) -> str:
        """Last lines of the JVM's stderr log (empty if none)."""
        if self.log_path is None or not self.log_path.is_file():
            return ""
        with contextlib.suppress(OSError):
            if self._log_file:
                self._log_file.flush()
            return _tail(self.log_path.read_text(errors="replace"), lines)
        return ""

    def __enter__(self) -> Neo4jServer:
        if self._proc is None:
            self.start()
        return self

    def __exit__(self, *exc_info) -> None:
        self.stop()

    def __repr__(self) -> str:
        return f"Neo4jServer(uri={self.uri!r}, pid={self.pid})"

    # -- internals ----------------------------------------------------------

    @staticmethod
    def _wait(proc: subprocess.Popen, timeout: float) -> int | None:
        try:
            return proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None

    def _start_stdout_drain(self, pending: bytes) -> None:
        """Copy anything the JVM prints after the Bolt line into the log, so a
        full stdout pipe can never block it."""
        proc, log = self._proc, self._log_file
        assert proc is not None and proc.stdout is not None and log is not None
        fd = proc.stdout.fileno()

        def drain() -> None:
            with contextlib.suppress(OSError, ValueError):
                if pending:
                    log.write(pending)
                    log.flush()
                while True:
                    chunk = os.read(fd, 65536)
                    if not chunk:
                        return
                    log.write(chunk)
                    log.flush()

        self._drain_thread = threading.Thread(target=drain, name="neo4j-stdout-drain", daemon=True)
        self._drain_thread.start()

    def _wait_for_bolt_line(self, deadline: float) -> tuple[str, bytes]:
        assert self._proc is not None and self._proc.stdout is not None
        fd = self._proc.stdout.fileno()
        buf = b""
        while True:
            while b"\n" in buf:
                raw, buf = buf.split(b"\n", 1)
                line = raw.decode(errors="replace").strip()
                if line.startswith(_BOLT_PREFIX):
                    return line, buf
                if line and self._log_file is not None:
                    self._log_file.write(raw + b"\n")
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise Neo4jUnavailable(
                    f"Neo4j did not start within {self.startup_timeout:.0f} s "
                    f"(log: {self.log_path})\n{self.log_tail()}"
                )
            ready, _, _ = select.select([fd], [], [], min(remaining, 0.5))
            if ready:
                chunk = os.read(fd, 4096)
                if chunk:
                    buf += chunk
                    continue
                rc = self._proc.wait()
                raise Neo4jUnavailable(
                    f"Neo4j launcher exited with code {rc} before Bolt was ready "
                    f"(log: {self.log_path})\n{self.log_tail()}"
                )

    def _verify_with_driver(self, deadline: float) -> None:
        try:
            import neo4j  # type: ignore
        except ImportError:
            return
        last: BaseException | None = None
        while time.monotonic() < deadline:
            try:
                with neo4j.GraphDatabase.driver(self.uri, auth=None) as driver:
                    driver.verify_connectivity()
                return
            except Exception as exc:  # pragma: no cover - depends on timing
                last = exc
                if not self.running:
                    break
                time.sleep(0.25)
        raise Neo4jUnavailable(
            f"Neo4j printed {self.uri} but the driver cannot connect: {last!r}\n{self.log_tail()}"
        )

    def _cds_flags(self, java: str, jar: Path) -> list[str]:
        self._cds_pending = None
        if not self.class_data_sharing:
            return []
        archive = jar.parent / f"cds-{_java_fingerprint(java)}.jsa"
        if archive.is_file():
            return [f"-XX:SharedArchiveFile={archive}"]
        if not os.access(jar.parent, os.W_OK):
            return []
        tmp = jar.parent / f"{archive.name}.tmp-{os.getpid()}-{id(self)}"
        self._cds_pending = (tmp, archive)
        return [f"-XX:ArchiveClassesAtExit={tmp}"]

    def _finish_cds(self, clean_exit: bool) -> None:
        if self._cds_pending is None:
            return
        tmp, archive = self._cds_pending
        self._cds_pending = None
        try:
            if clean_exit and tmp.is_file() and tmp.stat().st_size > 0:
                os.replace(tmp, archive)
            else:
                tmp.unlink(missing_ok=True)
        except OSError:
            pass

    def _cleanup_files(self, *, keep_log: bool) -> None:
        if self._log_file is not None:
            with contextlib.suppress(OSError):
                self._log_file.close()
            self._log_file = None
        if self.workdir is None:
            return
        log_inside = self.log_path is not None and self.workdir in self.log_path.resolve().parents
        if keep_log and log_inside:
            # Keep the whole directory (Neo4j's own logs are useful too).
            print(f"neo4j_server: kept logs in {self.workdir}", file=sys.stderr)
            return
        shutil.rmtree(self.workdir, ignore_errors=True)


def _main(argv: Sequence[str]) -> int:
    build_only = "--build-only" in argv
    try:
        jar = ensure_launcher_built()
        print(f"launcher: {jar}", flush=True)
        if build_only:
            return 0
        server = Neo4jServer().start()
    except Neo4jUnavailable as exc:
        print(f"Neo4j unavailable: {exc.reason}", file=sys.stderr)
        return 1
    print(
        f"{server.uri}  (started in {server.startup_seconds:.1f} s, log {server.log_path})",
        flush=True,
    )
    try:
        if sys.stdin.isatty():
            signal.pause()
        else:
            sys.stdin.read()
    except KeyboardInterrupt:
        pass
    finally:
        rc = server.stop()
        print(f"stopped (exit {rc})")
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
