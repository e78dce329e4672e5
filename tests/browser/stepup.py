"""The "Confirm it's you" step as a person passes it (issue 42, item 5): the password
field has focus, they type their password and press Enter, and the action they asked
for goes ahead. Browser tests that forget something pass it this way."""

from playwright.sync_api import Page, expect

from tests.iris_site.factories import PASSWORD


def confirm_its_you(page: Page, password: str = PASSWORD) -> None:
    expect(page.get_by_role("heading", name="Confirm it's you", level=1)).to_be_visible()
    expect(page.get_by_label("Your password")).to_be_focused()
    page.keyboard.type(password)
    page.keyboard.press("Enter")
