"""The virtual board's MicroPython REPL against stock mpremote, over its real pty.

The code mpremote sends runs in the sandboxed MicroPython of the virtual board
(host/vora_host/virtual/repl.py), against the board's simulated flash folder. Also the
finding of the Vora issue: "`vora repl` on the virtual board says mpremote reaches the
REPL, but the virtual board has none; `mpremote exec` hangs and the board is dead
afterwards" (test_vora_repl_then_mpremote_exec_and_reset_on_the_virtual_board).
"""

import os
import shutil
import subprocess
import sys
import time

import serial

from test_sim import ROOT, Host, SimProcess

MPREMOTE_TIMEOUT = 60


def mpremote(path, *args, timeout=MPREMOTE_TIMEOUT):
    return subprocess.run([sys.executable, "-m", "mpremote", "connect", path, *args],
                          capture_output=True, text=True, timeout=timeout, cwd=str(ROOT))


def vora(*args, env=None, timeout=60):
    return subprocess.run([sys.executable, "-m", "vora_host", *args], capture_output=True,
                          text=True, timeout=timeout, cwd=str(ROOT), env=env)


def read_until(port, ending, timeout=60):
    data = b""
    end = time.monotonic() + timeout
    while not data.endswith(ending):
        if time.monotonic() > end:
            raise AssertionError("no %r; got %r" % (ending, data[-200:]))
        data += port.read(1)
    return data


def test_stock_mpremote_lists_copies_runs_and_resets_the_virtual_board(tmp_path):
    flash = tmp_path / "flash"
    sim = SimProcess("--flash", str(flash))
    try:
        done = mpremote(sim.path, "fs", "ls")
        assert done.returncode == 0, done.stderr
        assert "save/" in done.stdout
        local = tmp_path / "notes.txt"
        local.write_bytes(bytes(range(256)) * 5)
        done = mpremote(sim.path, "fs", "cp", str(local), ":notes.txt", "+", "fs", "mkdir",
                        ":lib", "+", "fs", "ls")
        assert done.returncode == 0, done.stderr
        assert "1280 notes.txt" in done.stdout and "lib/" in done.stdout
        assert (flash / "notes.txt").read_bytes() == local.read_bytes()  # on the flash folder
        assert (flash / "lib").is_dir()
        done = mpremote(sim.path, "exec", "import sys; print(sys.platform, 6 * 7)")
        assert done.stdout.split() == ["rp2", "42"], done.stderr
        done = mpremote(sim.path, "fs", "cp", ":notes.txt", str(tmp_path / "back.txt"))
        assert (tmp_path / "back.txt").read_bytes() == local.read_bytes()
        assert mpremote(sim.path, "reset").returncode == 0
        # A stock board after a reset: its REPL again, the flash as it was.
        done = mpremote(sim.path, "fs", "ls")
        assert done.returncode == 0 and "notes.txt" in done.stdout, done.stderr
        done = mpremote(sim.path, "exec", "print(open('notes.txt','rb').read()[:3])")
        assert done.stdout.strip() == "b'\\x00\\x01\\x02'"
        assert mpremote(sim.path, "fs", "rm", ":notes.txt").returncode == 0
        assert not (flash / "notes.txt").exists()
    finally:
        sim.kill()


def test_raw_paste_is_served_soft_reset_keeps_files_and_ctrl_c_stops_a_loop(tmp_path):
    sim = SimProcess("--flash", str(tmp_path / "flash"))
    try:
        port = serial.Serial(sim.path, timeout=0.2)
        port.write(b"\r\x03\x03\r\x01")
        read_until(port, b"raw REPL; CTRL-B to exit\r\n>")
        # Raw paste as a Pico serves it (MicroPython's pyexec.c): "R\x01", a window of
        # 128 bytes (its 256-byte buffer halved) and a second one granted at once, "\x01"
        # for each window read, "\x04" for the end; no "OK" (the plain raw REPL's).
        port.write(b"\x05A\x01")
        assert read_until(port, b"R\x01\x80\x00\x01") == b"R\x01\x80\x00\x01"
        code = b"x = 5\nf = open('kept.txt', 'w')\nf.write('kept')\nf.close()\n"
        code += b"# " + b"-" * (3 * 128 - len(code) - 3) + b"\n"  # three windows exactly
        port.write(code[:256])
        assert read_until(port, b"\x01\x01") == b"\x01\x01"  # two windows read
        port.write(code[256:] + b"\x04")
        assert read_until(port, b"\x01\x04") == b"\x01\x04"  # the third, then the end
        assert read_until(port, b"\x04>") == b"\x04\x04>"  # no output, no error
        port.write(b"\x05A\x01")
        read_until(port, b"R\x01\x80\x00\x01")
        port.write(b"print(6 * 7)\n1 / 0\n\x04")
        out = read_until(port, b"\x04>")
        assert out.startswith(b"\x0442\r\n\x04Traceback") and b"ZeroDivisionError" in out, out
        assert b"OK" not in out
        port.write(b"\x05A\x01")
        read_until(port, b"R\x01\x80\x00\x01")
        port.write(b"print('never run')\n\x03")  # Ctrl-C abandons the paste
        out = read_until(port, b"\x04>")
        assert b"KeyboardInterrupt" in out and b"never run" not in out, out
        # A paste longer than the board's heap is read to its end, windows granted as
        # before, and refused as a board's compiler would (nothing kept beyond the bound).
        port.write(b"\x05A\x01")
        read_until(port, b"R\x01\x80\x00\x01")
        big = b"print('too long')\n" + b"#" * (200 * 1024) + b"\n"
        granted, sent = 256, 0
        while sent < len(big):
            n = min(granted - sent, len(big) - sent)
            port.write(big[sent:sent + n])
            sent += n
            if sent == granted:
                assert read_until(port, b"\x01") == b"\x01"
                granted += 128
        port.write(b"\x04")
        out = read_until(port, b"\x04>")
        assert b"MemoryError" in out and b"too long" not in out, out[-200:]
        port.write(b"\x04")  # soft reset: a fresh MicroPython, the flash stays
        assert b"soft reboot" in read_until(port, b"raw REPL; CTRL-B to exit\r\n>")
        port.write(b"print(open('kept.txt').read())\ntry:\n print(x)\nexcept NameError:\n"
                   b" print('x is gone')\n\x04")
        out = read_until(port, b"\x04>")
        assert b"kept" in out and b"x is gone" in out
        port.write(b"while True:\n pass\n\x04")
        read_until(port, b"OK")
        time.sleep(0.6)
        port.write(b"\x03")  # Ctrl-C: the runaway program stops, the REPL is back
        read_until(port, b">")
        port.write(b"\r\x01")
        read_until(port, b"raw REPL; CTRL-B to exit\r\n>")
        port.write(b"print(40 + 2)\x04")
        assert b"42" in read_until(port, b"\x04>")
        port.close()
    finally:
        sim.kill()


def test_code_that_reaches_javascript_stays_in_the_sandbox(tmp_path):
    sim = SimProcess("--flash", str(tmp_path / "flash"))
    target = tmp_path / "escaped.txt"
    try:
        done = mpremote(sim.path, "exec", "import js\n"
                        "js.process.getBuiltinModule('fs').writeFileSync(%r, 'x')" % str(target))
        assert done.returncode != 0
        assert not target.exists()
        done = mpremote(sim.path, "exec", "print('still', 'here')")
        assert done.stdout.strip() == "still here", done.stderr
    finally:
        sim.kill()


def test_vora_repl_then_mpremote_exec_and_reset_on_the_virtual_board(tmp_path):
    # The Vora issue's finding: before, `mpremote exec` hung here and the board was dead.
    sim = SimProcess("--save-dir", str(tmp_path / "save"), "--seed", "3")
    try:
        sim.cmd("press c3")  # a game is dealt (and saved)
        done = vora("repl", "--port", sim.path)
        assert done.returncode == 0 and "mpremote" in done.stdout, done.stdout + done.stderr
        done = mpremote(sim.path, "exec", "print(6 * 7)")
        assert done.returncode == 0 and done.stdout.strip() == "42", done.stderr
        assert mpremote(sim.path, "reset").returncode == 0
        host = Host(sim.path)  # the firmware again, with its saved game
        try:
            c = host.connected()
            assert c.board["game"] is not None
        finally:
            host.close()
    finally:
        sim.kill()


def test_without_a_repl_the_board_refuses_and_the_game_goes_on(tmp_path):
    no_node = tmp_path / "bin"
    no_node.mkdir()
    os.symlink(sys.executable, no_node / "python")
    env = dict(os.environ, PATH=str(no_node))
    assert shutil.which("node", path=env["PATH"]) is None
    sim = SimProcess("--save-dir", str(tmp_path / "save"), env=env)
    try:
        done = vora("repl", "--port", sim.path)
        assert done.returncode == 1
        assert "refused REPL" in done.stdout and "Node" in done.stdout, done.stdout
        host = Host(sim.path)
        try:
            assert host.connected().board["fw"]
        finally:
            host.close()
        sim.cmd("press c3")  # the game still runs
        assert sim.cmd("state")[0] != "none"
    finally:
        sim.kill()


def test_a_flash_folder_larger_than_the_flash_is_refused(tmp_path):
    import io
    from vora_host.virtual import sim
    (tmp_path / "big.bin").write_bytes(b"\0" * 20000)
    err = io.StringIO()
    out = io.StringIO()
    assert sim.run(flash_dir=tmp_path, flash_size=8192, headless=True, stdout=out,
                   stderr=err) == 1
    assert "more than the flash's 8 KB" in err.getvalue() and out.getvalue() == ""


def test_a_board_with_an_empty_flash_shows_its_screen_at_a_terminal(tmp_path):
    """Issue 22: `vora sim --flash EMPTY` at a terminal crashed drawing its first screen
    (no firmware runs, so there is no game to describe); now it says what runs."""
    from pty_screen import PtyScreen
    flash = tmp_path / "flash"
    flash.mkdir()
    args = [sys.executable, "-m", "vora_host", "sim", "--flash", str(flash)]
    with PtyScreen(args, cols=120, rows=40, cwd=str(ROOT)) as term:
        term.wait_for("stock MicroPython: no firmware on the flash")
        text = " ".join(term.text().split())
        assert "No game runs" in text and "Traceback" not in text
        term.send("press c3\r", 1.0)  # a key still closes its switch; no game answers it
        assert "Traceback" not in term.text()
        term.send("q")
        assert term.wait_exit() == 0


def test_without_micropythons_npm_package_sim_and_flash_name_it_and_its_install(tmp_path):
    """Issue 22: after `./dev play` alone (no npm ci), `vora flash sim` printed b'' and "Is
    MicroPython on the board?". The virtual board and vora flash now name the missing npm
    package and the command that installs it."""
    env = dict(os.environ, VORA_NODE_MODULES=str(tmp_path / "no-node-modules"))
    sim = SimProcess("--save-dir", str(tmp_path / "save"), env=env)
    try:
        done = vora("flash", sim.path, "--no-progress")
        assert done.returncode == 1
        said = " ".join((done.stdout + done.stderr).split())
        assert "micropython-webassembly-pyscript" in said and "npm ci" in said, said
        assert "./dev setup" in said and "b''" not in said
        sim.cmd("press c3")  # the game goes on
        assert sim.cmd("state")[0] != "none"
    finally:
        sim.kill()
    bare = SimProcess("--flash", str(tmp_path / "flash"), env=env)
    try:
        assert bare.cmd("state") == ["none"]
        # stderr is read by its own thread: give it until a deadline to arrive.
        deadline = time.monotonic() + 60.0
        said = ""
        while "npm ci" not in said and time.monotonic() < deadline:
            time.sleep(0.05)
            said = " ".join("".join(bare.stderr).split())
        assert "micropython-webassembly-pyscript" in said and "npm ci" in said, said
    finally:
        bare.kill()


def test_an_installed_package_says_the_npm_command_that_adds_the_repl(tmp_path, monkeypatch):
    """An installed vora (no checkout) ships the REPL's runner; its refusal names the npm
    command that puts MicroPython where it looks, short enough for a host to show whole."""
    from vora_host import resources
    from vora_host.virtual import repl
    monkeypatch.setattr(resources, "_CHECKOUT", tmp_path)  # no checkout around the package
    monkeypatch.delenv("VORA_NODE_MODULES", raising=False)
    monkeypatch.setattr(repl.Path, "home", lambda: tmp_path / "home")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "home" / ".local" / "share"))
    monkeypatch.setattr(repl, "NODE_MODULES", repl._node_modules())
    monkeypatch.setattr(repl, "PACKAGE_DIR", repl.NODE_MODULES / repl.NPM_PACKAGE)
    assert repl.NODE_MODULES == tmp_path / "home" / ".local" / "share" / "vora" / \
        "micropython" / "node_modules"
    said = repl.install_hint()
    assert ("npm install --prefix ~/.local/share/vora/micropython "
            "@micropython/micropython-webassembly-pyscript@1.27.0") in said, said
    assert len("the board says: refused REPL: " + said) <= 200  # a host shows it whole
    assert repl.unavailable() == said  # Node.js 20+ is here (./dev setup): only the package
