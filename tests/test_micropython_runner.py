"""The MicroPython runner itself (tools/mpy_run.mjs through tests/mpy.py).

These tests FAIL when Node or the npm package is missing: CI installs them with ./dev setup.
"""

import textwrap

from mpy import REPO_MOUNT, node_available, run_micropython


def test_micropython_is_installed():
    assert node_available(), (
        "real MicroPython is not available: Node.js and the npm package "
        "@micropython/micropython-webassembly-pyscript are needed; run ./dev setup"
    )


def test_runs_code_and_returns_output():
    result = run_micropython("print('hello', 6 * 7)\nprint('last line without newline', end='')")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "hello 42\nlast line without newline"
    assert result.stderr == ""


def test_it_really_is_micropython():
    result = run_micropython(
        "import sys, micropython\n"
        "print(sys.implementation.name)\n"
        "print(sys.implementation.version[:2] >= (1, 20))\n",
        check=True,
    )
    assert result.stdout.split() == ["micropython", "True"]


def test_stderr_is_forwarded_separately():
    result = run_micropython("import sys\nprint('out')\nprint('err', file=sys.stderr)", check=True)
    assert result.stdout == "out\n"
    assert result.stderr == "err\n"


def test_exception_gives_nonzero_exit_and_traceback():
    result = run_micropython(
        textwrap.dedent(
            """\
            print("before")
            def deep():
                raise ValueError("the reason")
            deep()
            print("never")
            """
        )
    )
    assert result.returncode == 1
    assert result.stdout == "before\n"
    assert "Traceback (most recent call last):" in result.stderr
    assert "line 3, in deep" in result.stderr
    assert result.stderr.rstrip().endswith("ValueError: the reason")


def test_syntax_error_is_a_failure():
    result = run_micropython("x = (\n")
    assert result.returncode == 1
    assert "SyntaxError" in result.stderr


def test_sys_exit_codes():
    assert run_micropython("import sys\nsys.exit(0)").returncode == 0
    assert run_micropython("import sys\nsys.exit()").returncode == 0
    assert run_micropython("import sys\nsys.exit(3)").returncode == 3
    message = run_micropython("import sys\nsys.exit('stopped: bad input')")
    assert message.returncode == 1
    assert "stopped: bad input" in message.stderr


def test_argv_reaches_the_script():
    result = run_micropython("import sys\nprint(sys.argv[1:])", args=["a", "b c"], check=True)
    assert result.stdout == "['a', 'b c']\n"


def test_script_given_as_a_path(tmp_path):
    script = tmp_path / "prog.py"
    script.write_text("import sys\nprint(__name__, sys.argv[0].endswith('prog.py'))\n")
    result = run_micropython(script, check=True)
    assert result.stdout == "__main__ True\n"


def test_mounted_package_imports(tmp_path):
    # A package with __init__.py, a subpackage and relative imports, as shared_rules will be.
    pkg = tmp_path / "src" / "fixturepkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("BASE = 40\n")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "calc.py").write_text("from .. import BASE\n\ndef answer():\n    return BASE + 2\n")
    (pkg / "data.json").write_text('{"k": [1, 2]}')
    (pkg / "ignored.txt").write_text("only .py and .json are copied")
    result = run_micropython(
        "import os, json\n"
        "from fixturepkg.sub import calc\n"
        "print(calc.answer(), calc.__file__)\n"
        "print(json.load(open('/ext/fixturepkg/data.json'))['k'])\n"
        "print(sorted(os.listdir('/ext/fixturepkg')))\n",
        mounts=[(tmp_path / "src", "/ext")],
        check=True,
    )
    assert result.stdout.splitlines() == [
        "42 /ext/fixturepkg/sub/calc.py",
        "[1, 2]",
        "['__init__.py', 'data.json', 'sub']",
    ]


def test_repo_root_is_mounted_at_app():
    # This very helper is in the repository's tests/ folder: it must be visible at /app/tests.
    result = run_micropython(
        "import os, sys\n"
        "print(sys.path[0])\n"
        f"print('mpy.py' in os.listdir('{REPO_MOUNT}/tests'))\n"
        f"print('.venv' in os.listdir('{REPO_MOUNT}'), 'node_modules' in os.listdir('{REPO_MOUNT}'))\n",
        check=True,
    )
    assert result.stdout.splitlines() == [REPO_MOUNT, "True", "False False"]


def test_check_raises_with_both_streams():
    try:
        run_micropython("print('partial')\nraise KeyError('missing')", check=True)
    except AssertionError as error:
        text = str(error)
    else:
        raise AssertionError("check=True did not raise on a failing script")
    assert "exited with 1" in text and "partial" in text and "KeyError" in text


def test_heap_size_sets_the_initial_gc_area():
    # The heap grows on demand in this build (not a cap), but the first area has the size asked:
    # micropython.mem_info() reports it as "GC: total: N" (N a little under the size, for tables).
    script = "import micropython\nmicropython.mem_info()\n"
    for heap in (64 * 1024, 192 * 1024):
        result = run_micropython(script, heap=heap, check=True)
        total = int(result.stdout.split("GC: total:")[1].split(",")[0])
        assert heap * 0.95 < total <= heap, result.stdout
