"""Argument types shared by the `vora` commands (argparse `type=` functions)."""

import argparse


def non_negative_int(text):
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("%r is not a whole number" % text)
    if n < 0:
        raise argparse.ArgumentTypeError("%d is negative" % n)
    return n


def seed(text):
    """A board seed: a whole number from 0 to shared_rules.prng.SEED_MAX, the range of the
    board's games (the board, the virtual board, the link)."""
    from shared_rules import prng
    return _seed_up_to(text, prng.SEED_MAX)


def game_seed(text):
    """A seed of any game: a whole number from 0 to the widest game's range (the
    hidden-information games', shared_rules.secret_prng.SEED_MAX). The command then checks
    it against its game's own range (shared_rules.games.check_seed)."""
    from shared_rules import prng, secret_prng
    ranges = "from 0 to %d (to %d in a game with hidden information)" % (
        prng.SEED_MAX, secret_prng.SEED_MAX)
    return _seed_up_to(text, max(prng.SEED_MAX, secret_prng.SEED_MAX), ranges)


def _seed_up_to(text, top, ranges=None):
    ranges = ranges or "from 0 to %d" % top
    text = text.strip()
    if not text.isdigit() or len(text) > len(str(top)) or int(text) > top:
        raise argparse.ArgumentTypeError("%r is not a seed: a seed is a whole number %s"
                                         % (text[:40], ranges))
    return int(text)


def positive_int(text):
    n = non_negative_int(text)
    if n == 0:
        raise argparse.ArgumentTypeError("must be at least 1")
    return n


def seconds(text):
    try:
        x = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError("%r is not a number of seconds" % text)
    if not 0 <= x <= 60:
        raise argparse.ArgumentTypeError("the delay must be between 0 and 60 seconds")
    return x


def claim_seconds(text):
    """How long a seat may be gone before the others may end the game (vora play
    --claim-after): from 10 s (a moment's Wi-Fi loss is not a departure) to a day."""
    try:
        x = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError("%r is not a number of seconds" % text[:40])
    if not 10 <= x <= 86400:
        raise argparse.ArgumentTypeError("a seat's time to come back is from 10 seconds to "
                                         "86400 (a day), not %s" % text[:40])
    return x


def option_value(module, name, text):
    """A game option given as text on the command line (`-o NAME=VALUE`), turned into the
    value its kind in `module.OPTIONS` asks for; ValueError naming the option otherwise."""
    import json

    from shared_rules import games
    from shared_rules.errors import BadPosition
    try:
        _, default, kind, _ = games.option_spec(module, name)
    except BadPosition as exc:
        raise ValueError(str(exc))
    text = text.strip()
    if isinstance(kind, tuple):
        if text not in kind:
            raise ValueError("option %s is one of %s, not %r" % (name, ", ".join(kind), text))
        return text
    if kind == "int":
        try:
            return int(text)
        except ValueError:
            raise ValueError("option %s is a whole number, not %r" % (name, text))
    if kind == "bool":
        low = text.lower()
        if low in ("1", "yes", "true", "on"):
            return True
        if low in ("0", "no", "false", "off"):
            return False
        raise ValueError("option %s is yes or no, not %r" % (name, text))
    if kind == "dict":
        try:
            value = json.loads(text)
        except ValueError:
            value = None
        if not isinstance(value, dict):
            raise ValueError("option %s is a JSON object such as {\"a\": 1}, not %r"
                             % (name, text))
        return value
    if text.startswith("@"):  # a file of the user's own (Boars' track and cards)
        return _file_text(name, text[1:])
    return text


MAX_OPTION_FILE = 1024 * 1024  # read at most this much; the game refuses what it cannot use


def _file_text(name, path):
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_OPTION_FILE + 1)
    except OSError as exc:
        raise ValueError("option %s: cannot read the file %s (%s)"
                         % (name, path, exc.strerror or exc))
    if len(data) > MAX_OPTION_FILE:
        raise ValueError("option %s: the file %s is over %d bytes" % (name, path, MAX_OPTION_FILE))
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError("option %s: the file %s is not UTF-8 text" % (name, path))


def game_option_pairs(module, texts, read=None):
    """{name: value} from `-o NAME=VALUE` texts, each checked by `read(module, name,
    text)` (default option_value())."""
    read = option_value if read is None else read
    out = {}
    for text in texts or ():
        name, sep, value = text.partition("=")
        if not sep or not name.strip():
            raise ValueError("%r: give an option as NAME=VALUE (options of %s: %s)" % (
                text, module.TITLE, ", ".join(s[0] for s in module.OPTIONS) or "none"))
        out[name.strip()] = read(module, name.strip(), value)
    return out
