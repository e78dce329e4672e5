import pytest


@pytest.fixture(autouse=True)
def export_dir(settings, tmp_path):
    """Every data-rights test writes its export files under its own temporary folder."""
    settings.IRIS_DSAR_EXPORT_DIR = str(tmp_path / "exports")
    return tmp_path / "exports"
