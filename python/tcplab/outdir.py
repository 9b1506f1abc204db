"""Output directories: what tcplab may write where, written all-or-nothing.

Every directory tcplab writes holds a marker, ``.tcplab-output.json`` (tool, version, kind
of output, the files tcplab wrote, whether the write completed). tcplab replaces a directory
only when its marker says it is a previous output of the same kind, and then touches only the
files the marker lists; anything else is refused unless ``force`` is given, and even then only
files with tcplab's output names are replaced. See docs/safety.md.
"""
from __future__ import annotations

import errno
import hashlib
import json
import os
import re
import secrets
import shutil
import socket
import stat
import time
from pathlib import Path
from typing import Callable, Iterable, Mapping, Union

MARKER = ".tcplab-output.json"
_MARKER_INCOMPLETE = ".tcplab-output.json.incomplete"
MAX_MARKER_BYTES = 16 << 20
# Pseudo file systems: writing there is never what the user meant.
_SYSTEM_ROOTS = (Path("/proc"), Path("/sys"))

# Temporary directories: ".tcplab-tmp-<pid>-<random>-<host>" beside the target while writing,
# ".tcplab-old-..." for the previous output during the swap. The host is part of the name so
# that a directory shared between machines never has a live run's directory removed.
_WORK_RE = re.compile(r"^\.tcplab-(tmp|old)-(\d+)-([0-9a-f]{8})-(.+)$")

Writer = Union[bytes, str, Callable[[Path], None]]


class OutputError(OSError):
    """Results could not be written (or read back): the message is one line naming the
    directory and the cause. ``status`` is the exit status the CLI uses: 1 for the
    environment (disk full, permissions, memory)."""

    status = 1


class OutputRefused(OutputError):
    """The target is not a place tcplab may write (a directory tcplab did not write, a file,
    a path under a file, a system directory): bad input, exit status 2. Nothing was written."""

    status = 2


def _version() -> str:
    from tcplab import _core

    return _core.__version__


def _host() -> str:
    return re.sub(r"[^A-Za-z0-9.-]", "_", socket.gethostname())[:64] or "host"


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, ValueError):
        return True  # someone else's process, or not a pid we could have written: keep it
    return True


def _plain_name(name: object) -> bool:
    return (isinstance(name, str) and name not in ("", ".", "..") and "/" not in name
            and "\\" not in name and "\0" not in name)


def read_marker(directory: str | os.PathLike) -> dict | None:
    """The marker of a directory tcplab wrote, or None (absent, unreadable, or not ours)."""
    try:
        with open(Path(directory) / MARKER, "rb") as f:
            data = f.read(MAX_MARKER_BYTES + 1)
        doc = json.loads(data) if len(data) <= MAX_MARKER_BYTES else None
    except (OSError, ValueError):
        return None
    if not isinstance(doc, dict) or doc.get("tool") != "tcplab":
        return None
    files = doc.get("files")
    if not isinstance(files, list) or not all(_plain_name(n) and n != MARKER for n in files):
        return None
    return doc


def check_complete(directory: str | os.PathLike) -> dict | None:
    """Raise OutputError if the directory's marker says a write was interrupted; return the
    marker (None for directories written before markers existed)."""
    marker = read_marker(directory)
    if marker is not None and marker.get("complete") is not True:
        raise OutputError(f"{directory}: the results are incomplete (writing them was interrupted); "
                          "run again to replace them")
    return marker


# ---------------------------------------------------------------------------------------------
# File names derived from user-given names

_UNSAFE = re.compile(r"[^A-Za-z0-9._+-]")
MAX_NAME_BYTES = 200


def safe_file_names(names: Iterable[str], suffix: str) -> dict[str, str]:
    """Map each name to a file name that stays in its directory: characters outside
    ``[A-Za-z0-9._+-]`` become ``_``, no leading dot or dash, at most MAX_NAME_BYTES bytes,
    unique even on case-insensitive file systems. A name that had to change gets a short hash
    of the original, so different names never meet; unchanged names map to themselves."""
    out: dict[str, str] = {}
    taken: set[str] = set()
    limit = MAX_NAME_BYTES - len(suffix)
    for name in names:
        stem = _UNSAFE.sub("_", name)
        if stem[:1] in ("", ".", "-"):
            stem = "_" + stem
        digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:8]
        if stem != name or len(stem) > limit:
            stem = f"{stem[: limit - 9]}-{digest}"
        candidate, i = stem + suffix, 0
        while candidate.casefold() in taken:
            i += 1
            tail = f"-{digest}-{i}" if i > 1 or stem.endswith(digest) else f"-{digest}"
            candidate = stem[: limit - len(tail)] + tail + suffix
        taken.add(candidate.casefold())
        out[name] = candidate
    return out


# ---------------------------------------------------------------------------------------------
# Deciding whether and how a target may be written


def _relation_to_cwd(path: Path) -> str:
    """"is" or "contains" when ``path`` is the current directory or one above it, else ""."""
    try:
        here = Path.cwd().resolve()
        p = path.resolve()
    except OSError:
        return ""
    return "is" if p == here else "contains" if p in here.parents else ""


def _refuse_system(target: Path) -> None:
    try:
        real = Path(os.path.realpath(target))
    except (OSError, ValueError):
        return
    for root in _SYSTEM_ROOTS:
        if real == root or root in real.parents:
            raise OutputRefused(f"{target}: is under {root}, a system directory; "
                                "give a directory of your own for the results")


def _check_ancestors(target: Path) -> None:
    """A target that does not exist yet: its nearest existing ancestor must be a directory."""
    for parent in Path(os.path.abspath(target)).parents:
        try:
            st = os.stat(parent)
        except FileNotFoundError:
            continue
        except NotADirectoryError:
            continue  # a component further up is a file: found when the loop gets there
        except OSError as e:
            raise OutputError(f"{target}: cannot check {parent}: {e.strerror or e}") from None
        if not stat.S_ISDIR(st.st_mode):
            raise OutputRefused(f"{target}: cannot be created because {parent} is a file, not a directory; "
                                "give a directory path")
        return


_FORCE_HINT = "choose a new directory, or pass --force (force=True) to write into it " \
              "(files with tcplab's output names are replaced, nothing else is touched)"


def plan_output(target: str | os.PathLike, kind: str, names: Iterable[str] = (), force: bool = False,
                legacy: Callable[[Path, list[str]], set | None] | None = None):
    """Check that ``target`` may receive an output of ``kind`` with file ``names``, without
    writing anything. Returns ``(mode, ours)``: ``mode`` is "new" (create it), "swap" (replace
    the whole directory atomically) or "merge" (replace file by file, keeping files tcplab
    did not write); ``ours`` the names of the files of the previous output. Raises
    OutputRefused (bad target) or OutputError (the file system cannot be read)."""
    target = Path(target)
    names = list(names)
    _refuse_system(target)
    try:
        st = os.lstat(target)
    except FileNotFoundError:
        _check_ancestors(target)
        return "new", set()
    except NotADirectoryError:
        _check_ancestors(target)
        raise OutputRefused(f"{target}: cannot be created: a component of the path is a file") from None
    except OSError as e:
        raise OutputError(f"{target}: cannot use it: {e.strerror or e}") from None
    symlink = stat.S_ISLNK(st.st_mode)
    if symlink:
        try:
            st = os.stat(target)
        except OSError:
            raise OutputRefused(f"{target}: is a symbolic link to nothing; give a directory path") from None
    if not stat.S_ISDIR(st.st_mode):
        raise OutputRefused(f"{target}: exists and is not a directory; tcplab never replaces a file it did "
                            "not write: give a directory path (a new one, or one tcplab wrote)")
    try:
        entries = sorted(os.listdir(target))
    except OSError as e:
        raise OutputError(f"{target}: cannot list the directory: {e.strerror or e}") from None
    cwd = _relation_to_cwd(target)
    can_swap = not symlink and not cwd and not os.path.ismount(target)
    if not entries:
        return ("swap" if can_swap else "merge"), set()
    marker = read_marker(target)
    ours: set | None = None
    if marker is not None and marker.get("kind") == kind:
        ours = set(marker["files"])
    elif marker is not None:
        if not force:
            raise OutputRefused(f"{target}: holds a tcplab {marker.get('kind')} output, not a {kind} output; "
                                f"{_FORCE_HINT}")
    elif legacy is not None:
        # Written before markers existed: replaced file by file, under a marker from then on.
        ours = legacy(target, entries)
    marked = marker is not None and ours is not None
    if ours is None:
        if not force:
            where = f"{cwd} the current directory and " if cwd else ""
            example = ", ".join(repr(e) for e in entries[:2]) + (", ..." if len(entries) > 2 else "")
            raise OutputRefused(f"{target}: {where}holds files tcplab did not write ({len(entries)}: {example}); "
                                f"{_FORCE_HINT}")
        ours = set()
    for name in names:
        p = target / name
        if os.path.lexists(p) and not (os.path.islink(p) or os.path.isfile(p)):
            raise OutputRefused(f"{target}: {name} exists and is not a file; move it away or choose another directory")
    others = set(entries) - ours - {MARKER}
    # Swap the whole directory only when it holds nothing but a marked previous output.
    mode = "swap" if can_swap and not others and marked else "merge"
    return mode, ours


# ---------------------------------------------------------------------------------------------
# Writing


def _write(path: Path, data: Writer) -> None:
    if isinstance(data, bytes):
        path.write_bytes(data)
    elif isinstance(data, str):
        path.write_text(data, encoding="utf-8")
    else:
        data(path)


def _marker_text(kind: str, files: list[str], complete: bool, extra: Mapping) -> str:
    doc = {"tool": "tcplab", "version": _version(), "kind": kind, "complete": complete,
           "files": sorted(files), **extra}
    return json.dumps(doc, indent=1)


def _remove_files(directory: Path, names: Iterable[str]) -> None:
    """Remove the named files (never directories), then the directory if it is empty."""
    for name in list(names) + [MARKER, _MARKER_INCOMPLETE]:
        p = directory / name
        if os.path.islink(p) or os.path.isfile(p):
            try:
                p.unlink()
            except FileNotFoundError:
                pass
    try:
        directory.rmdir()
    except OSError:
        pass  # something else is in it: leave it alone


_STALE_SCAN_SECONDS = 60.0
_last_scan: dict[str, float] = {}


def remove_stale(parent: Path) -> None:
    """Remove work directories a killed tcplab left in ``parent``: ours by name, written on
    this host by a process that no longer exists, holding only the files its marker lists.
    A directory is scanned at most once a minute per process (a sweep saves thousands of runs
    into one directory)."""
    key = os.path.abspath(parent)
    now = time.monotonic()
    if now - _last_scan.get(key, -_STALE_SCAN_SECONDS) < _STALE_SCAN_SECONDS:
        return
    _last_scan[key] = now
    host = _host()
    try:
        entries = list(os.scandir(parent))
    except OSError:
        return
    for e in entries:
        m = _WORK_RE.match(e.name)
        if not m or m.group(4) != host or _alive(int(m.group(2))):
            continue
        if not e.is_dir(follow_symlinks=False):
            continue
        d = Path(e.path)
        marker = read_marker(d)
        listed = set(marker["files"]) if marker is not None else set()
        try:
            present = set(os.listdir(d)) - {MARKER, _MARKER_INCOMPLETE}
        except OSError:
            continue
        if present <= listed:
            _remove_files(d, listed)


def _work_dir(parent: Path, what: str) -> Path:
    return parent / f".tcplab-{what}-{os.getpid()}-{secrets.token_hex(4)}-{_host()}"


def _environment_error(target: Path, e: BaseException) -> OutputError:
    if isinstance(e, MemoryError):
        return OutputError(f"{target}: not enough memory to write the results")
    if isinstance(e, OSError) and e.errno == errno.ENOSPC:
        return OutputError(f"{target}: cannot write the results: no space left on the device")
    why = (e.strerror if isinstance(e, OSError) else None) or str(e) or type(e).__name__
    where = ""
    if isinstance(e, OSError) and e.filename:
        path = Path(os.fsdecode(e.filename))
        if not any(_WORK_RE.match(part) for part in path.parts):
            where = f" ({path})"
    return OutputError(f"{target}: cannot write the results: {why}{where}")


def write_output(target: str | os.PathLike, files: Mapping[str, Writer], kind: str, force: bool = False,
                 meta: Mapping | None = None,
                 legacy: Callable[[Path, list[str]], set | None] | None = None) -> Path:
    """Write ``files`` (name -> bytes, text, or a function writing the given path) into the
    directory ``target``, all or nothing, under the rules of :func:`plan_output`. ``meta`` is
    stored in the marker. ``legacy(dir, entries)`` recognises an output written before
    markers existed and returns its files (or None).

    Raises OutputRefused (nothing written) or OutputError (the environment failed: nothing
    changed, or, if it failed while replacing files one by one beside files tcplab did not
    write, the marker says "incomplete")."""
    target = Path(target)
    for name in files:
        if not _plain_name(name) or name in (MARKER, _MARKER_INCOMPLETE) or _WORK_RE.match(name):
            raise ValueError(f"{name!r} cannot be the name of an output file")
    mode, ours = plan_output(target, kind, files, force, legacy)
    meta = dict(meta or {})
    parent = Path(os.path.abspath(target)).parent
    tmp = None
    try:
        try:
            parent.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise _environment_error(target, e) from e
        # Files are moved from the work directory with rename, so both must be on one file
        # system: work inside the target when it is a mount point, or when the parent is not
        # ours to write.
        inside = mode == "merge" and os.stat(parent).st_dev != os.stat(target).st_dev
        if not inside:
            remove_stale(parent)
            try:
                tmp = _work_dir(parent, "tmp")
                tmp.mkdir()  # not mkdtemp: the directory gets the user's umask, not 0700
            except PermissionError:
                if mode == "new":
                    raise
                inside, tmp = True, None
        if inside:
            mode = "merge"
            remove_stale(target)
            tmp = _work_dir(target, "tmp")
            tmp.mkdir()
        names = sorted(files)
        (tmp / MARKER).write_text(_marker_text(kind, names, False, meta))
        for name in names:
            _write(tmp / name, files[name])
        (tmp / MARKER).write_text(_marker_text(kind, names, True, meta))
        if mode == "new":
            os.rename(tmp, target)
            tmp = None
        elif mode == "swap":
            old = _work_dir(parent, "old")
            os.rename(target, old)
            try:
                os.rename(tmp, target)
            except BaseException:
                os.rename(old, target)
                raise
            tmp = None
            _remove_files(old, ours)
        else:
            _merge(tmp, target, kind, names, ours, meta)
            tmp = None
    except (OSError, MemoryError) as e:
        if isinstance(e, OutputError):
            raise
        raise _environment_error(target, e) from e
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
    return target


def _merge(tmp: Path, target: Path, kind: str, names: list[str], ours: set, meta: Mapping) -> None:
    """Replace the previous output file by file, leaving the other files alone. Until the
    end the marker says "incomplete" and lists every file that may be tcplab's."""
    (tmp / _MARKER_INCOMPLETE).write_text(_marker_text(kind, sorted(set(names) | ours), False, meta))
    os.replace(tmp / _MARKER_INCOMPLETE, target / MARKER)
    for name in sorted(ours - set(names)):
        p = target / name
        if os.path.islink(p) or os.path.isfile(p):
            p.unlink(missing_ok=True)
    for name in names:
        os.replace(tmp / name, target / name)
    os.replace(tmp / MARKER, target / MARKER)
    tmp.rmdir()


def claim_directory(target: str | os.PathLike, kind: str, force: bool = False,
                    legacy: Callable[[Path, list[str]], set | None] | None = None) -> Path:
    """Make ``target`` a directory that holds a tree of tcplab outputs of ``kind`` (e.g. a
    reproduction: its run store, experiment pages and report), under the rules of
    :func:`plan_output`: a new or empty directory, one whose marker says ``kind``, or one
    ``legacy`` recognises; anything else is refused unless ``force``. The marker is written
    (atomically) when missing; nothing else is written here."""
    target = Path(target)
    plan_output(target, kind, (), force, legacy)
    try:
        target.mkdir(parents=True, exist_ok=True)
        if read_marker(target) is None:
            tmp = target / f"{_MARKER_INCOMPLETE}.{os.getpid()}"
            tmp.write_text(_marker_text(kind, [], True, {}))
            os.replace(tmp, target / MARKER)
    except (OSError, MemoryError) as e:
        raise _environment_error(target, e) from e
    return target
