"""firmware/manifest.py, the manifest of a frozen-firmware build, against the modules a
version slot holds: evaluated with stand-ins for MicroPython's manifest functions (it is
this repository's own file), it must name exactly the slot's modules and boot.py, and
every file it names must exist."""

from pathlib import Path

from vora_host.maker import bundle as bundles

ROOT = Path(__file__).resolve().parents[1]
MANIFEST = ROOT / "firmware" / "manifest.py"


def frozen_by_manifest(path):
    """{"package/module": source path} that MicroPython's build would freeze, and the
    manifests it includes."""
    frozen, included = {}, []
    here = path.parent

    def package(name, files=None, base_path=".", opt=None):
        assert files is not None, "package(%r) without files would freeze the whole folder" % name
        for f in files:
            assert f.endswith(".py"), f
            frozen["%s/%s" % (name, f[:-3])] = (here / base_path / name / f).resolve()

    def module(name, base_path=".", opt=None):
        frozen[name[:-3]] = (here / base_path / name).resolve()

    def include(manifest, **kwargs):
        included.append(manifest)

    def unexpected(*args, **kwargs):
        raise AssertionError("firmware/manifest.py uses a function this test does not know")

    exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"),
         {"package": package, "module": module, "include": include, "freeze": unexpected,
          "require": unexpected, "metadata": unexpected})
    return frozen, included


def test_the_frozen_manifest_names_every_firmware_module_and_nothing_else():
    frozen, included = frozen_by_manifest(MANIFEST)
    slot = {name: src.resolve() for name, src in bundles.sources(ROOT)}
    slot["vora_fw/boot"] = (ROOT / "firmware" / "vora_fw" / "boot.py").resolve()
    assert sorted(frozen) == sorted(slot)
    assert frozen == slot
    assert all(src.is_file() for src in frozen.values())
    assert included == ["$(PORT_DIR)/boards/manifest.py"]  # asyncio and the port's own


def test_a_module_missing_from_the_manifest_is_found(tmp_path):
    text = MANIFEST.read_text(encoding="utf-8").replace('        "store.py",\n', "")
    (tmp_path / "firmware").mkdir()
    (tmp_path / "firmware" / "manifest.py").write_text(text, encoding="utf-8")
    frozen, _ = frozen_by_manifest(tmp_path / "firmware" / "manifest.py")
    assert "vora_fw/store" not in frozen and "vora_fw/store" in dict(bundles.sources(ROOT))
