"""okey101-processor (python -m services.processor): run the rules processor.

Options: `okey101-processor --help` (every flag also reads OKEY_<NAME>; see
services/processor/settings.py).
"""

from __future__ import annotations

from services.common.runtime import run
from services.processor.app import Processor
from services.processor.settings import ProcessorSettings


def main() -> int:
    return run(ProcessorSettings, Processor.from_settings)


if __name__ == "__main__":
    raise SystemExit(main())
