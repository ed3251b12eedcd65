"""The catalog builds its records with the runtime record classes of ``generated/``, never by calling the
generator: while generating, the generator installs the text those files are about to hold
(``install_fresh_records``), so a changed record type is what the registry values are built with."""

import subprocess
import sys
import textwrap

from symbolic.codegen.locations import CHECKOUT


def _run(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=CHECKOUT, capture_output=True,
                          text=True, check=False)


def test_records_are_built_with_the_installed_module():
    done = _run("""
        import sys
        from pathlib import Path
        from symbolic.codegen.records import install
        text = Path("generated/workloads.py").read_text(encoding="utf-8")
        install("workloads", text + "\\nSTALE_CHECK = 'fresh text'\\n")  # as if the record types had changed
        from symbolic.catalog import Models
        record = Models.Language.GPT3.value
        print(sys.modules[type(record).__module__].STALE_CHECK, type(record).__name__)
    """)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["fresh", "text", "TransformerWorkload"]


def test_a_fresh_tree_installs_nothing_and_records_are_the_runtime_classes():
    done = _run("""
        import sys
        import generated.workloads as on_disk
        from symbolic.codegen.render import install_fresh_records
        install_fresh_records()
        from symbolic.catalog import Models
        print(sys.modules["generated.workloads"] is on_disk, type(Models.Language.GPT3.value) is on_disk.TransformerWorkload)
    """)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "True"]


def test_installing_after_records_were_built_is_refused():
    done = _run("""
        from pathlib import Path
        from symbolic.catalog import Models
        Models.Language.GPT3.value
        from symbolic.codegen.records import install
        install("workloads", Path("generated/workloads.py").read_text(encoding="utf-8"))
    """)
    assert done.returncode != 0
    assert "generated/workloads.py is stale, and catalog records (Models) were built" in done.stderr
