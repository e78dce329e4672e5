import pytest

from tests.webhooks.receiver import Receiver


@pytest.fixture
def webhook_settings(settings):
    """Plain HTTP to the loopback receiver: DEBUG (HTTPS only otherwise) and 127.0.0.1
    allow-listed (private and loopback addresses are refused otherwise)."""
    settings.DEBUG = True
    settings.IRIS_WEBHOOK_ALLOWED_HOSTS = ["127.0.0.1"]
    return settings


@pytest.fixture
def receivers():
    started: list[Receiver] = []

    def make(*answers, port: int = 0) -> Receiver:
        receiver = Receiver(answers=list(answers)) if answers else Receiver()
        started.append(receiver.start(port))
        return receiver

    yield make
    for receiver in started:
        receiver.stop()
