"""`vora games export`, `import`, `end` and `delete`: the actions that write a file or the log.

An export written atomically, an import read within the readers' bound and checked
before it enters the log, a game left "playing" closed by hand, games removed for good
(asked first). Split from vora_host.log.cli (issue 42): what writes is apart from what
only reads (vora_host.log.cli_show) and from the command's parser.
"""

import os
import sys
from pathlib import Path

from rich.markup import escape

from vora_host.log import formats, readers
from vora_host.log.cli_views import _public_mode, _public_problem
from vora_host.log.errors import BadImport, GameLogError
from vora_host.log.records import game_title, result_of
from vora_host.log.verify import record_of
from vora_host.words import plural

__all__ = ["cmd_export", "cmd_import", "cmd_end", "cmd_delete", "MAX_IMPORT_BYTES"]

# The readers' own bound: a game record is a few hundred kilobytes at most.
MAX_IMPORT_BYTES = readers.MAX_RECORD_CHARS


# ---------------------------------------------------------------- export and import

def _write_atomically(path, text):
    tmp = "%s.tmp%d" % (path, os.getpid())
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def cmd_export(args, ctx):
    log = ctx.open()
    info = log.game(args.id)
    public, refusal = _public_mode(args, info)
    if refusal:
        return ctx.fail(refusal)
    report = log.verify(args.id)
    if public:
        writer = formats.export_public_json if args.format == "json" \
            else formats.export_public_text
    else:
        writer = formats.export_json if args.format == "json" else formats.export_text
    text = writer(log, args.id)
    if not report.ok:
        if public:
            _, texts = formats.public_history(record_of(info)[0], info["history"])
            live_texts = [t for t, h in zip(texts, info["history"])
                          if h["taken_back_at"] is None]
            message = _public_problem(report, live_texts)
        else:
            message = report.message
        ctx.warn("game %d does not replay cleanly (exported as logged): %s"
                 % (args.id, message))
    if args.output is None:
        sys.stdout.write(text)
        sys.stdout.flush()
        return 0
    target = Path(args.output)
    if target.is_dir():
        return ctx.fail("%s is a folder" % args.output)
    try:
        _write_atomically(target, text)
    except OSError as exc:
        return ctx.fail("cannot write %s: %s" % (args.output, exc.strerror or exc))
    ctx.err.print("Game %d written to %s (%s%s, %s)."
                  % (args.id, escape(args.output), args.format,
                     ", public: it cannot be imported" if public else "",
                     plural(report.moves, "move")))
    return 0


def _read_import(name):
    if name == "-":
        data = sys.stdin.buffer.read(MAX_IMPORT_BYTES + 1) if hasattr(sys.stdin, "buffer") \
            else sys.stdin.read(MAX_IMPORT_BYTES + 1).encode("utf-8")
    else:
        path = Path(name)
        if path.is_dir():
            raise GameLogError("%s is a folder, not a game file" % name)
        try:
            with open(path, "rb") as f:
                data = f.read(MAX_IMPORT_BYTES + 1)
        except FileNotFoundError:
            raise GameLogError("no such file: %s" % name)
        except OSError as exc:
            raise GameLogError("cannot read %s: %s" % (name, exc.strerror or exc))
    if len(data) > MAX_IMPORT_BYTES:
        raise GameLogError("%s is larger than %d MB: not a game record"
                           % (name, MAX_IMPORT_BYTES // (1024 * 1024)))
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise GameLogError("%s line %d: not UTF-8 text" % (name, line))


def cmd_import(args, ctx):
    text = _read_import(args.file)
    try:
        parsed = readers.parse(text)
    except BadImport as exc:
        return ctx.fail("%s: %s" % (args.file, exc))
    log = ctx.open(create=True)
    try:
        gid, report = readers.import_parsed(log, parsed, force=args.force)
    except BadImport as exc:
        return ctx.fail("%s: %s" % (args.file, exc))
    info = log.game(gid)
    if not report.ok:
        ctx.warn("imported although it does not replay cleanly (--force): %s" % report.message)
    same = [g for g in log.same_games(parsed.record, parsed.meta.get("started_at")) if g != gid]
    if same:
        ctx.warn("the log already held this game as game %s; imported again (--force)"
                 % ", ".join(str(g) for g in same))
    ctx.out.print("Imported %s (%s, %s) as game [bold]%d[/bold]: %s%s, status %s."
                  % (escape(args.file), escape(game_title(info["game"])), parsed.kind, gid,
                     plural(info["move_count"], "move"), " (%d taken back)" % info["taken_back"]
                     if info["taken_back"] else "", info["status"]))
    return 0


# ---------------------------------------------------------------- end and delete

def cmd_end(args, ctx):
    log = ctx.open()
    info = log.game(args.id)
    if info["status"] in ("over", "abandoned"):
        ctx.out.print("Game %d is already %s: nothing to do." % (args.id, info["status"]))
        return 0
    report = log.verify(args.id)
    if report.state is None or report.problem in ("setup", "illegal", "mismatch"):
        status, result = args.status or "abandoned", None
        ctx.warn("game %d does not replay (%s): it ends without a result"
                 % (args.id, report.message))
    elif report.state.is_over():
        status, result = "over", result_of(report.state)
    else:
        status = args.status or "abandoned"
        result = result_of(report.state, "ended by hand")
    log.end_game(args.id, status, result)
    log.flush()  # the file must take it now: say so otherwise
    ctx.out.print("Game %d is now %s (%s)." % (args.id, status, plural(info["move_count"], "move")))
    return 0


def cmd_delete(args, ctx):
    log = ctx.open()
    infos = [log.game(gid) for gid in args.ids]  # NoSuchGame before anything is removed
    if not args.yes:
        listing = ", ".join("%d (%s, %s, %s)" % (i["id"], game_title(i["game"]),
                                                 plural(i["move_count"], "move"), i["status"])
                            for i in infos)
        if not sys.stdin.isatty():
            return ctx.fail("delete game%s %s for good? Run it at a terminal to confirm, "
                            "or add --yes" % ("s" if len(infos) > 1 else "", listing))
        answer = ctx.out.input("Delete game%s %s for good? [y/N] "
                               % ("s" if len(infos) > 1 else "", escape(listing)))
        if answer.strip().lower() not in ("y", "yes"):
            ctx.out.print("Nothing deleted.")
            return 0
    for info in infos:
        log.delete_game(info["id"])
    ctx.out.print("Deleted game%s %s." % ("s" if len(infos) > 1 else "",
                                          ", ".join(str(i["id"]) for i in infos)))
    return 0
