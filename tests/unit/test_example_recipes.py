"""Every example carries the same CI recipe (a user copies any one of them): the workflow and both scripts."""

from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
RECIPE = ("ci/cost.sh", "ci/gate.sh")


def test_examples_carry_one_ci_recipe():
    """ci/cost.sh and ci/gate.sh are identical in every example, and each has a workflow calling both."""
    projects = sorted(p for p in EXAMPLES.iterdir() if (p / "pyproject.toml").is_file())
    assert len(projects) >= 2
    for path in RECIPE:
        texts = {p.name: (p / path).read_text() for p in projects}
        assert len(set(texts.values())) == 1, f"{path} differs between {sorted(texts)}"
    for p in projects:
        workflow = (p / ".github" / "workflows" / "serverbench.yml").read_text()
        assert "ci/cost.sh" in workflow and "ci/gate.sh" in workflow, p.name
