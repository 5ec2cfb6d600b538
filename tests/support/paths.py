"""Where the repository and the test fixtures are, for a test module at any depth of tests/."""

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures"
