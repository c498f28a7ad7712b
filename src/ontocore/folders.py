"""Transactional outcome folders and atomic file writes, for every tool that leaves files behind.

A run writes into a hidden sibling folder that is renamed into place only when the run succeeded, and removed
when it failed or was interrupted (`outcome_folder`); a file is replaced in one step (`atomic_write`), so a
reader sees the old file or the whole new one. The tools' cache folder (`cache_dir`: the embedded model, kept
prompt states, view caches, the inference lock) is named here too."""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import tempfile
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any, Iterable, Iterator

from .errors import InputError

log = logging.getLogger(__name__)

OWNER_FILE = ".owner-pid"  # in a partial folder: the process writing it
RESUMABLE = ".resumable"  # in a partial folder: a run can go on from it (`plan_outcome(resume=True)`)


def cache_dir() -> Path:
    """$ONTOBUILD_CACHE, else $XDG_CACHE_HOME/ontobuild, else ~/.cache/ontobuild."""
    base = os.environ.get("ONTOBUILD_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(Path.home(), ".cache"), "ontobuild")
    return Path(base)


def atomic_write(path: str | Path, data: bytes | str) -> Path:
    """Write `data` to `path` so that readers see the old file or the whole new one, never a part."""
    path = Path(path)
    raw = _utf8(data, path) if isinstance(data, str) else data
    try:
        mode = path.stat().st_mode & 0o777  # keep the mode of the file being replaced
    except FileNotFoundError:
        mode = 0o644  # mkstemp would leave it private (0600)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as f:
            f.write(raw)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
        _fsync_dir(path.parent)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    return path


def _utf8(text: str, path: Path) -> bytes:
    """UTF-8 bytes of `text`; a lone surrogate (which UTF-8 cannot hold) becomes U+FFFD, with a warning."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        log.warning("%s: invalid characters (lone surrogates) written as U+FFFD", path.name)
        return re.sub("[\ud800-\udfff]", "\ufffd", text).encode("utf-8")


def _fsync_dir(folder: Path) -> None:
    """Make the rename durable (best effort: not every platform can open a folder)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_json(path: str | Path, obj: Any) -> Path:
    """Atomically write `obj` as indented UTF-8 JSON with a final newline."""
    text = json.dumps(obj, indent=2, ensure_ascii=False, allow_nan=False)  # NaN is not JSON: fail here, not later
    return atomic_write(path, text + "\n")


def new_outcome_dir(root: str | Path = "outcomes", out: str | Path | None = None) -> Path:
    """Create and return a folder for a run, written in place (not transactional; see `outcome_folder`).

    With `out`, that folder (created if needed; it may exist). Otherwise root/YYYYmmdd_HHMMSS, with
    _2, _3, ... appended when a folder of that name already exists."""
    try:
        if out is not None:
            path = Path(out)
            if path.exists() and not path.is_dir():
                raise InputError(f"{path} exists and is not a folder; choose another --out.")
            path.mkdir(parents=True, exist_ok=True)
            return path
        root = Path(root)
        root.mkdir(parents=True, exist_ok=True)
        stem = datetime.now().strftime("%Y%m%d_%H%M%S")
        n = 1
        while True:
            path = root / (stem if n == 1 else f"{stem}_{n}")
            try:
                path.mkdir()
                return path
            except FileExistsError:
                n += 1
    except OSError as e:
        raise InputError(f"cannot create the outcome folder: {e.strerror or e} ({e.filename}).") from None


class OutcomeFolder:
    """A run's outcome folder, made transactionally: files are written into `path`, a hidden sibling of the
    final folder (`.NAME.partial-XXXX`); `commit` renames it to `final` in one step, `discard` removes it (or,
    with keep_partial, renames it to NAME.incomplete so that it says what it is)."""

    def __init__(self, final: Path, replace: bool = False, keep_partial: bool = False, explicit: bool = False,
                 adopt: Path | None = None) -> None:
        self.final = final
        self.replace = replace
        self.keep_partial = keep_partial
        self.explicit = explicit  # a folder the user named (--out): never silently moved to another name
        self.claim: Path | None = None
        self.resumed = adopt is not None  # `path` is the unfinished folder of an earlier run, taken over
        self.kept: Path | None = None  # where a failed run's folder was kept (keep_partial), once discarded
        try:
            self.claim = _claim(final) if explicit else None  # the folder beside it must be writable: checked here
            final.parent.mkdir(parents=True, exist_ok=True)
            self.path = Path(tempfile.mkdtemp(prefix=f".{final.name}.partial-", dir=final.parent))
            if adopt is not None:
                os.rmdir(self.path)
                os.replace(adopt, self.path)
            os.chmod(self.path, 0o755)
            (self.path / OWNER_FILE).write_text(str(os.getpid()))
            _sweep_stale(final.parent)
        except OSError as e:
            self._release()
            raise InputError(f"cannot create the outcome folder {final}: {e.strerror or e} ({e.filename}); choose a "
                             "folder you can write for --out.") from None
        self.done = False

    def _release(self) -> None:
        if self.claim is not None:
            self.claim.unlink(missing_ok=True)
            self.claim = None

    def commit(self) -> Path:
        """Put the finished folder in place of `final` (replacing it when allowed) and return `final`."""
        old = None
        if self.final.exists() and self.replace:
            old = Path(tempfile.mkdtemp(prefix=f".{self.final.name}.old-", dir=self.final.parent))
            os.rmdir(old)
            os.replace(self.final, old)
        elif self.final.is_dir() and not any(self.final.iterdir()):  # an empty --out folder: taken as is
            os.rmdir(self.final)
        elif self.final.exists() and self.explicit:
            self.discard()
            raise InputError(f"--out {self.final} was filled by someone else during this run; nothing was "
                             "replaced. Run again with another --out.")
        elif self.final.exists():  # a timestamped folder taken meanwhile: the next free name
            self.final = _free_name(self.final)
        (self.path / OWNER_FILE).unlink(missing_ok=True)
        os.replace(self.path, self.final)
        _fsync_dir(self.final.parent)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
        self._release()
        self.done = True
        log.info("outcome written to %s", self.final)
        return self.final

    def discard(self) -> Path | None:
        """Remove the unfinished folder; with keep_partial keep it as NAME.incomplete (returned)."""
        self.done = True
        self._release()
        if not self.path.exists():
            return None
        if self.keep_partial:
            kept = _free_name(self.final.with_name(self.final.name + ".incomplete"))
            os.replace(self.path, kept)
            self.kept = kept
            return kept
        shutil.rmtree(self.path, ignore_errors=True)
        return None


def _sweep_stale(parent: Path) -> None:
    """Remove the partial folders of runs that were killed outright (SIGKILL, power loss): their owner process
    is gone. A partial folder of a live run is left alone."""
    for folder in parent.glob(".*.partial-*"):
        try:
            pid = int((folder / OWNER_FILE).read_text().strip())
            os.kill(pid, 0)
        except ProcessLookupError:
            if (folder / RESUMABLE).exists():  # a run can go on from it: kept, under a name that says so
                kept = _free_name(parent / (folder.name[1:].split(".partial-")[0] + ".incomplete"))
                log.info("keeping %s, left by a run that was killed, as %s (resumable)", folder, kept)
                os.replace(folder, kept)
                continue
            log.info("removing %s, left by a run that was killed", folder)
            shutil.rmtree(folder, ignore_errors=True)
        except (OSError, ValueError):  # no owner file, or not ours to judge: leave it
            continue


def _free_name(path: Path) -> Path:
    n, candidate = 2, path
    while candidate.exists():
        candidate = path.with_name(f"{path.name}_{n}")
        n += 1
    return candidate


def _inside(path: Path, folder: Path) -> bool:
    try:
        path.resolve().relative_to(folder.resolve())
        return True
    except ValueError:
        return False


def _claim(final: Path) -> Path:
    """Claim `final` for this run, atomically: a second run into the same --out is refused while this one runs
    (a claim whose process is gone is stale and taken over)."""
    final.parent.mkdir(parents=True, exist_ok=True)
    claim = final.parent / f".{final.name}.claim"
    for _ in range(2):
        try:
            fd = os.open(claim, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            try:
                pid = int(claim.read_text().strip() or 0)
            except (OSError, ValueError):
                pid = 0
            if pid and _alive(pid):
                raise InputError(f"--out {final} is being written by another run (process {pid}); wait for it, "
                                 "or choose another --out.") from None
            claim.unlink(missing_ok=True)  # stale: its process is gone
            continue
        with os.fdopen(fd, "w") as fh:
            fh.write(str(os.getpid()))
        return claim
    raise InputError(f"--out {final} could not be claimed for this run; choose another --out.")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def resumable(final: Path) -> Path | None:
    """The unfinished folder of an earlier run into `final` that a run can go on from (it holds RESUMABLE): a
    partial folder whose process is gone, or `NAME.incomplete`; the newest when there are several."""
    found = []
    for folder in [*final.parent.glob(f".{final.name}.partial-*"), *final.parent.glob(f"{final.name}.incomplete*")]:
        if not (folder / RESUMABLE).exists():
            continue
        try:
            pid = int((folder / OWNER_FILE).read_text().strip())
        except (OSError, ValueError):
            pid = 0
        if pid and pid != os.getpid() and _alive(pid):
            continue  # still being written
        found.append((folder.stat().st_mtime, str(folder), folder))
    return max(found)[2] if found else None


def plan_outcome(root: str | Path = "outcomes", out: str | Path | None = None, force: bool = False,
                 inputs: Iterable[str | Path] = (), keep_partial: bool = False, resume: bool = False
                 ) -> OutcomeFolder:
    """The outcome folder of a new run. `out` must not be a non-empty folder unless `force` (then it is
    replaced when the run succeeds), and never a folder holding one of the run's `inputs`. `resume`: take over
    the unfinished folder of an earlier run into `out` when there is one (`resumable`; `OutcomeFolder.resumed`)."""
    if out is None:
        final = _free_name(Path(root) / datetime.now().strftime("%Y%m%d_%H%M%S"))
        return OutcomeFolder(final, keep_partial=keep_partial)
    final = Path(out)
    here = Path.cwd().resolve()
    if final.resolve() == here or final.resolve() in here.parents:
        raise InputError(f"--out {out} is the current folder or one of its parents; the outcome would replace it. "
                         "Choose a new folder for --out.")
    if final.is_symlink():
        raise InputError(f"--out {out} is a symbolic link; give the folder it points to ({final.resolve()}) or a "
                         "new folder.")
    if final.exists() and not final.is_dir():
        raise InputError(f"{final} exists and is not a folder; choose another --out.")
    held = [str(p) for p in inputs if _inside(Path(p), final)]
    if held:
        raise InputError(f"--out {final} holds an input of this run ({', '.join(held)}); the outcome would "
                         "replace it. Choose another --out.")
    if final.is_dir() and any(final.iterdir()) and not force:
        raise InputError(f"--out {final} is a folder that is not empty; choose another --out, or add --force to "
                         "replace it when the run succeeds.")
    folder = OutcomeFolder(final, replace=force, keep_partial=keep_partial, explicit=True,
                           adopt=resumable(final) if resume else None)
    return folder


@contextmanager
def outcome_folder(root: str | Path = "outcomes", out: str | Path | None = None, force: bool = False,
                   inputs: Iterable[str | Path] = (), keep_partial: bool = False, resume: bool = False
                   ) -> Iterator[OutcomeFolder]:
    """Write a run's files into `folder.path`; the folder is committed when the block ends normally and
    discarded on any exception, including Ctrl-C and SIGTERM (see signals.py). `resume`: see plan_outcome."""
    folder = plan_outcome(root, out, force, inputs, keep_partial, resume)
    try:
        yield folder
    except BaseException:
        kept = folder.discard()
        if kept is not None:
            log.warning("the incomplete outcome is kept in %s", kept)
        raise
    if not folder.done:
        folder.commit()
