"""Makers' keys: a bundle file signed with Ed25519, checked on the PC before it is sent.

A bundle's hashes (bundle.py) say it is whole; a signature says who built it, for bundles
passed between people. `vora keygen KEYFILE` makes a key pair: KEYFILE (the private key,
PKCS#8 PEM, readable by its owner only) and KEYFILE.pub, one line:

    vora-ed25519 <the public key, 64 hex digits> <a name>

`vora update --bundle FILE --sign KEYFILE` signs; `vora update --from FILE` installs a
signed bundle only when its key is trusted: listed in the trusted-keys file (lines as in a
.pub file; `#` starts a comment; keygen adds your own key to it) or given with --trust.
An unsigned bundle file needs --allow-unsigned; a signature that does not verify is refused.

What is signed: SIGNED_PREFIX + the manifest's SHA-256 (the bundle's id), and the manifest
holds every file's SHA-256 and the bundle hash over every field. The board does not check
signatures (docs/makers.md says why): the PC that sends the bundle does.

Ed25519 comes from the `cryptography` package (pinned in requirements.lock); SigningError
is the only error that leaves this module.
"""

import os
from pathlib import Path

from vora_host import private_files

SIGNED_PREFIX = b"vora-bundle-signature 1\n"
PUBLIC_TAG = "vora-ed25519"
TRUSTED_ENV = "VORA_TRUSTED_KEYS"
MAX_KEY_FILE = 64 * 1024


class SigningError(Exception):
    """A key or a signature that cannot be used; the message says which and why."""


def _ed25519():
    try:
        from cryptography.hazmat.primitives.asymmetric import ed25519
    except ImportError:
        raise SigningError("signatures need the cryptography package (pinned in "
                           "requirements.lock): run ./dev setup, or pip install cryptography")
    return ed25519


def _serialization():
    _ed25519()
    from cryptography.hazmat.primitives import serialization
    return serialization


def fingerprint(public):
    """A short name for a public key: its first 16 hex digits."""
    return public.hex()[:16]


def public_line(public, name):
    return "%s %s %s" % (PUBLIC_TAG, public.hex(), name)


def default_trusted_path(env=None):
    """$VORA_TRUSTED_KEYS, else trusted-keys in the user's config folder
    (platformdirs.user_config_dir("vora"): ~/.config/vora on Linux)."""
    env = os.environ if env is None else env
    if env.get(TRUSTED_ENV):
        return Path(env[TRUSTED_ENV]).expanduser()
    try:
        import platformdirs
    except ImportError:
        base = env.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
        return Path(base) / "vora" / "trusted-keys"
    return Path(platformdirs.user_config_dir("vora", appauthor=False)) / "trusted-keys"


# ---------------------------------------------------------------- keys

def new_key(path, name=None):
    """Write a new key pair: `path` (private) and `path`.pub. Never overwrites. Returns
    (public key bytes, the .pub line)."""
    ed25519 = _ed25519()
    serialization = _serialization()
    path = Path(path)
    pub_path = Path(str(path) + ".pub")
    for p in (path, pub_path):
        if os.path.lexists(p):  # a symbolic link too, even one that points nowhere
            raise SigningError("%s exists already: keygen does not overwrite a key%s"
                               % (p, " (it is a symbolic link)" if p.is_symlink() else ""))
    name = name or path.stem
    if not name or any(c.isspace() for c in name):
        raise SigningError("a key's name is one word (no spaces): %r" % name)
    key = ed25519.Ed25519PrivateKey.generate()
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption())
    public = key.public_key().public_bytes(serialization.Encoding.Raw,
                                           serialization.PublicFormat.Raw)
    line = public_line(public, name)
    # Both files made new (O_EXCL, never through a symbolic link) with their modes set
    # whatever the umask: the private key its owner's only, the public key readable by all.
    written = []
    try:
        for target, data, mode in ((path, pem, private_files.PRIVATE_FILE),
                                   (pub_path, (line + "\n").encode("ascii"),
                                    private_files.PUBLIC_FILE)):
            with private_files.open_new(target, mode, text=False) as f:
                written.append(target)
                f.write(data)
    except OSError as exc:
        for done in written:  # no half pair: a private key without its .pub, or the reverse
            try:
                os.unlink(done)
            except OSError:
                pass
        if isinstance(exc, FileExistsError):  # made at this instant by another program
            raise SigningError("%s exists already: keygen does not overwrite a key"
                               % exc.filename)
        raise SigningError("cannot write the key to %s: %s" % (exc.filename or path,
                                                              exc.strerror or exc))
    return public, line


def load_private(path):
    """The private key in `path` (as keygen wrote it)."""
    ed25519 = _ed25519()
    serialization = _serialization()
    path = Path(path)
    try:
        data = path.read_bytes()[:MAX_KEY_FILE]
    except OSError as exc:
        raise SigningError("cannot read the key %s: %s" % (path, exc.strerror or exc))
    try:
        key = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError) as exc:
        raise SigningError("%s is not a private key vora can use (%s); make one with "
                           "vora keygen" % (path, exc))
    except Exception as exc:  # the library's own errors for unsupported keys
        raise SigningError("%s is not a private key vora can use (%s)" % (path, exc))
    if not isinstance(key, ed25519.Ed25519PrivateKey):
        raise SigningError("%s is not an Ed25519 key; make one with vora keygen" % path)
    return key


def sign(key, bundle_id):
    """(public key bytes, signature bytes) of a bundle id with a loaded private key."""
    serialization = _serialization()
    public = key.public_key().public_bytes(serialization.Encoding.Raw,
                                           serialization.PublicFormat.Raw)
    return public, key.sign(SIGNED_PREFIX + bundle_id)


def verify(public, signature, bundle_id):
    """Nothing when `signature` is the signature of the bundle id by `public`; else
    SigningError."""
    ed25519 = _ed25519()
    from cryptography.exceptions import InvalidSignature
    try:
        ed25519.Ed25519PublicKey.from_public_bytes(public).verify(
            signature, SIGNED_PREFIX + bundle_id)
    except (InvalidSignature, ValueError):
        raise SigningError("its signature does not verify: the bundle was changed after it "
                           "was signed, or the signature is damaged")


# ---------------------------------------------------------------- trust

def parse_public_line(line, where="a key line"):
    """(public key bytes, name) of a .pub / trusted-keys line."""
    parts = line.split()
    if len(parts) < 2 or parts[0] != PUBLIC_TAG:
        raise SigningError("%s is not '%s <64 hex digits> <name>'" % (where, PUBLIC_TAG))
    text = parts[1]
    if len(text) != 64 or any(c not in "0123456789abcdef" for c in text):
        raise SigningError("%s: the key is not 64 lowercase hex digits" % where)
    return bytes.fromhex(text), " ".join(parts[2:]) or fingerprint(bytes.fromhex(text))


def read_keys(path):
    """{public key bytes: name} of a trusted-keys or .pub file."""
    path = Path(path)
    try:
        text = path.read_bytes()[:MAX_KEY_FILE].decode("utf-8")
    except OSError as exc:
        raise SigningError("cannot read the keys in %s: %s" % (path, exc.strerror or exc))
    except UnicodeDecodeError:
        raise SigningError("%s is not a text file of public keys" % path)
    keys = {}
    for n, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if line:
            public, name = parse_public_line(line, "%s line %d" % (path, n))
            keys[public] = name
    return keys


def trusted_keys(extra=(), env=None):
    """The trusted keys: the trusted-keys file (when there is one) and the files in
    `extra` (--trust). Returns ({public: name}, the trusted-keys file's path)."""
    path = default_trusted_path(env)
    # Whoever may write the file decides whose bundles install: only its owner.
    private_files.tighten(path, "the trusted-keys file", mask=0o022)
    keys = read_keys(path) if path.exists() else {}
    for p in extra:
        keys.update(read_keys(p))
    return keys, path


def add_trusted(public, line, env=None):
    """Add a .pub line to the trusted-keys file (made if missing); returns its path."""
    path = default_trusted_path(env)
    try:
        private_files.tighten(path, "the trusted-keys file", mask=0o022)
        if path.exists() and public in read_keys(path):
            return path
        private_files.make_folder(path.parent)
        if path.is_symlink() and not path.exists():
            raise SigningError("cannot add the key to %s: it is a symbolic link to %s, which "
                               "does not exist" % (path, os.readlink(path)))
        if not path.exists():
            # Made new with its mode set (0644: public keys, but only its owner may add
            # one), whatever the umask.
            private_files.open_new(path, private_files.PUBLIC_FILE).close()
        with open(path, "a", encoding="ascii") as f:
            f.write(line + "\n")
    except OSError as exc:
        raise SigningError("cannot add the key to %s: %s" % (path, exc.strerror or exc))
    return path


def check_trust(bundle, source, trusted, trusted_path, allow_unsigned=False):
    """Whether a bundle read from the file `source` may be installed. Returns a sentence
    for the user (with "warning" first when it is unsigned but allowed); SigningError
    names the bundle and says what to do."""
    if bundle.signer is None:
        if allow_unsigned:
            return ("warning", "%s is not signed: installing it because of --allow-unsigned "
                               "(its hashes are whole, but nothing says who built it)" % source)
        raise SigningError("%s is not signed: nothing says who built it. Install it anyway "
                           "with --allow-unsigned, or ask its maker for a signed one (vora "
                           "update --bundle FILE --sign KEYFILE)" % source)
    name = trusted.get(bundle.signer)
    if name is None:
        raise SigningError("%s is signed by key %s, which is not among your trusted keys (%s): "
                           "if you trust its maker, add --trust with their .pub file"
                           % (source, public_line(bundle.signer, "").strip(), trusted_path))
    return ("ok", "%s is signed by %s (key %s)" % (source, name, fingerprint(bundle.signer)))
