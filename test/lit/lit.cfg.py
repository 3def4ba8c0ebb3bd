"""lit configuration for lumir's FileCheck tests.

Tools are invoked as `python -m ...` through the running interpreter, so the suite works
where console scripts are not on PATH (the GPU machine) and always tests this checkout.
"""

import os
import sys

import lit.formats

config.name = "lumir"  # noqa: F821
config.test_format = lit.formats.ShTest(execute_external=False)  # noqa: F821
config.suffixes = [".mlir"]  # noqa: F821
config.test_source_root = os.path.dirname(__file__)  # noqa: F821
config.excludes = ["lit.cfg.py", "Inputs"]  # noqa: F821

repo_root = os.path.dirname(os.path.dirname(config.test_source_root))  # noqa: F821
python = sys.executable
config.substitutions.append(("lumir-opt", f"{python} -m lumir.tools.lumir_opt"))  # noqa: F821
config.substitutions.append(("lumir-run", f"{python} -m lumir.tools.lumir_run"))  # noqa: F821
config.substitutions.append(("filecheck", f"{python} -m filecheck"))  # noqa: F821
config.substitutions.append(("%python", python))  # noqa: F821

pythonpath = os.pathsep.join(p for p in (repo_root, os.environ.get("PYTHONPATH", "")) if p)
config.environment["PYTHONPATH"] = pythonpath  # noqa: F821
for name in ("PYTHONHASHSEED", "HOME", "PATH", "CUDA_VISIBLE_DEVICES", "LUMIR_DEVICE"):
    if name in os.environ:
        config.environment[name] = os.environ[name]  # noqa: F821
