"""Naming the board's port (issue 38, bugs 11 and 12).

11. The port was a positional PORT in flash, update and doctor but --port in play, mirror
    and repl; `vora doctor --info` said "give its device with --port" and then refused
    --port. Now --port everywhere, the device alone kept as another spelling.
12. A misspelled port (/dev/ttyNOPE): doctor and update advised `vora flash`, the mirror
    waited for ever without saying the name may be wrong. Now the system's error and the
    serial devices found.
"""

import asyncio
from types import SimpleNamespace

import pytest

from vora_host.cli import build_parser, main
from vora_host.link import ports
from vora_host.link.mirror import Follower

PICO = SimpleNamespace(device="/dev/ttyACM7", vid=0x2E8A, pid=0x0005)
OTHER = SimpleNamespace(device="/dev/ttyS0", vid=None, pid=None)


@pytest.fixture
def usb(monkeypatch, tmp_path):
    """What the system lists: a Pico at /dev/ttyACM7 and a plain serial port."""
    monkeypatch.setattr(ports.list_ports, "comports", lambda: [OTHER, PICO])
    monkeypatch.setenv("VORA_SIM_DEVICE", str(tmp_path / "ttyVORA"))  # no virtual board


@pytest.mark.parametrize("command", ["flash", "update", "doctor", "play", "mirror", "repl"])
def test_every_command_takes_the_port_as_port(command):
    args = build_parser().parse_args([command, "--port", "/dev/ttyACM3"])
    assert args.port == "/dev/ttyACM3"


@pytest.mark.parametrize("command", ["flash", "update", "doctor"])
def test_the_device_alone_is_still_taken_and_help_says_so(command, capsys):
    from vora_host.maker.cli import port_of
    args = build_parser().parse_args([command, "/dev/ttyACM3"])
    assert port_of(args) == "/dev/ttyACM3"
    args = build_parser().parse_args([command, "/dev/ttyACM3", "--port", "/dev/ttyACM4"])
    with pytest.raises(ValueError, match="given twice"):
        port_of(args)
    with pytest.raises(SystemExit):
        build_parser().parse_args([command, "--help"])
    said = " ".join(capsys.readouterr().out.split())
    assert "--port DEVICE" in said and "also accepted alone" in said


def test_the_doctors_hint_names_an_option_it_takes(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(ports.list_ports, "comports", lambda: [OTHER])
    monkeypatch.setenv("VORA_SIM_DEVICE", str(tmp_path / "ttyVORA"))
    assert main(["doctor", "--info"]) == 1
    said = " ".join(capsys.readouterr().err.split())
    assert "give its device with --port" in said, said
    # ... and --port is taken (here it names a device that is not there: bug 12's words)
    assert main(["doctor", "--info", "--port", "/dev/ttyNOPE"]) == 1
    said = " ".join(capsys.readouterr().err.split())
    assert "unrecognized arguments" not in said and "No such file or directory" in said


@pytest.mark.parametrize("argv", [["doctor", "--info"], ["update"], ["flash"], ["repl"],
                                  ["play"], ["play", "boars"], ["doctor"]])
def test_a_misspelled_port_gets_the_systems_error_and_the_ports_found(usb, capsys, argv):
    status = main(argv + ["--port", "/dev/ttyNOPE"])
    out = capsys.readouterr()
    said = " ".join((out.out + out.err).split())
    assert status == 1, said
    assert "/dev/ttyNOPE: No such file or directory" in said, said
    assert "Is the name right?" in said, said
    assert "serial devices found: /dev/ttyACM7 (MicroPython on a Raspberry Pi Pico " \
           "(RP2040)), /dev/ttyS0" in said, said
    advice = said.split(": ", 1)[1]  # past "vora flash: "
    assert "vora flash" not in advice and "install" not in advice, said


def test_no_devices_at_all_says_what_to_do(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(ports.list_ports, "comports", lambda: [])
    monkeypatch.setenv("VORA_SIM_DEVICE", str(tmp_path / "ttyVORA"))
    assert main(["doctor", "--port", "/dev/ttyNOPE"]) == 1
    said = " ".join(capsys.readouterr().err.split())
    assert "no serial devices found: plug the board in" in said and "--port sim" in said


def test_the_virtual_board_not_running_is_said_so(usb, capsys):
    assert main(["doctor", "--port", "sim", "--info"]) == 1
    said = " ".join(capsys.readouterr().err.split())
    assert "no virtual board runs at" in said and "start it with `vora sim`" in said, said
    assert "vora flash" not in said


def test_the_mirror_waiting_for_a_misspelled_port_says_the_name_may_be_wrong(usb):
    said = []

    async def follow():
        follower = Follower("/dev/ttyNOPE", on_event=lambda what, text: said.append(text))
        task = asyncio.create_task(follower.run())
        for _ in range(1000):
            if said:
                break
            await asyncio.sleep(0.01)
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)

    asyncio.run(follow())
    assert said, "the mirror said nothing"
    line = said[0]
    assert "/dev/ttyNOPE (No such file or directory): is the name right?" in line, line
    assert "/dev/ttyACM7 (MicroPython on a Raspberry Pi Pico (RP2040))" in line, line
