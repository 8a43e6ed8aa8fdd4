#!/usr/bin/env python3
"""test_playground.py - the playground (`sdui dev DIR`, docs/playground.md) in a
real browser: headless Chromium driven by Selenium against a live server on a
copy of Examples/.

Each test class copies Examples/ into a fresh temporary folder, starts
`SDUI dev FOLDER --port 0` on it (SDUI: the executable in SDUI_EXE, or the
first argument) and one browser; tests that edit files put them back.

What is checked, against the contract's URLs, element ids, messages and
`window.sduiDev`:

* the index lists the example screens and flows;
* typing into the checkout's promo-code field and tapping Apply writes the
  store (`cart.promoCode`), logs the action and changes the screen;
* an empty required field shows the screen session's validation message;
* a token edited on disk is patched in without a reload;
* a broken file (bad JSON, or a rule broken) shows the banner naming the
  file and the place, keeps the last good render, and the fix hides it;
* an older app's primitive map brings placeholders, and the empty map takes
  them away;
* a flow moves forward by a tap and back with the Back button;
* the panels: dark mode, text scale and device width.

Run:  bash scripts/browser-tests.sh PATH/TO/sdui
 or:  SDUI_EXE=PATH/TO/sdui python3 -m unittest discover -s Tests/Playground -v
 or:  python3 Tests/Playground/test_playground.py PATH/TO/sdui [-v] [-k PATTERN]
(the last two inside a venv with selenium).
"""
import json
import os
import random
import re
import shutil
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402

from playground_support import (  # noqa: E402
    DevServer, Page, copy_examples, find_executable, new_browser, read_json, set_prop,
    write_json, write_text)

# What the tests look for in the examples (Examples/tokens, Examples/flows).
PROMO_INPUT = '#sdui-dev-screen input[name="promoCode"]'
PLACEHOLDERS = '#sdui-dev-screen .sdui-placeholder, #sdui-dev-screen [data-kind="placeholder"]'
FIELD_MESSAGE = "#sdui-dev-screen .sdui-field-message"
OLD_APP_PRIMITIVES = "Column@1,Row@1,Text@1"


class PlaygroundTestCase(unittest.TestCase):
    """One server on a fresh copy of Examples/ and one browser per class;
    ``self.page`` is the playground page helper."""

    @classmethod
    def setUpClass(cls):
        cls.folder = copy_examples()
        cls.server = DevServer(find_executable(), cls.folder)
        try:
            cls.server.start()
            cls.driver = new_browser()
        except BaseException:
            cls.server.stop()
            shutil.rmtree(cls.folder, ignore_errors=True)
            raise
        cls.page = Page(cls.driver, cls.server)

    @classmethod
    def tearDownClass(cls):
        try:
            cls.driver.quit()
        finally:
            cls.server.stop()
            shutil.rmtree(cls.folder, ignore_errors=True)

    def setUp(self):
        # A server that died in an earlier test fails this one at once, with
        # what it printed.
        if not self.server.alive():
            self.fail(f"the server has exited; it printed:\n{self.server.output()}")

    def file(self, relative):
        """The path of a file of the class's copy of the examples."""
        return os.path.join(self.folder, relative)

    def keep_file(self, relative):
        """Remembers a file's text and puts it back when the test ends (pass
        or fail); returns the text."""
        path = self.file(relative)
        with open(path, encoding="utf-8") as f:
            original = f.read()
        self.addCleanup(self.restore_file, path, original)
        return original

    def restore_file(self, path, text):
        """Writes `text` back over `path` if it changed, then gives the
        watcher a moment, so the next test starts from the examples as they
        are."""
        with open(path, encoding="utf-8") as f:
            if f.read() == text:
                return
        write_text(path, text)
        time.sleep(1.0)

    def type_into(self, element, text):
        """Replaces an input's text the way a person does: select all,
        delete, type (every key an `input` event)."""
        element.click()
        element.send_keys(Keys.CONTROL, "a")
        element.send_keys(Keys.BACKSPACE)
        if text:
            element.send_keys(text)


class IndexAndScreenTests(PlaygroundTestCase):
    """The index, and a screen's taps, inputs and panels (Examples' checkout)."""

    def test_index_lists_screens_and_flows(self):
        """`GET /` links the checkout screen and the onboarding flow to their pages."""
        self.driver.get(self.server.url)
        links = self.page.wait(lambda: self.driver.execute_script(
            "return [...document.querySelectorAll('a[href]')].map(a => a.href);"),
            "links on the index page")
        self.assertTrue(any(h.endswith("/view/screen/checkout") for h in links),
                        f"no link to /view/screen/checkout among {links}")
        self.assertTrue(any(h.endswith("/view/flow/onboarding") for h in links),
                        f"no link to /view/flow/onboarding among {links}")
        # The links work: the checkout's opens a connected playground page.
        checkout = next(h for h in links if h.endswith("/view/screen/checkout"))
        self.page.open(checkout[len(self.server.url):])

    def promo_value_attribute(self):
        """The `value` attribute of the promo-code input: what the server
        last rendered into the field (typing changes only the property)."""
        return self.driver.execute_script(
            "const i = document.querySelector(arguments[0]); return i && i.getAttribute('value');", PROMO_INPUT)

    def test_typed_promo_code_applied_through_store(self):
        """Typing a code writes it through the store (the field is patched
        with it); tapping Apply then sets `cart.promoCode` and logs the action.

        What changes in the screen is the field: the server patches the
        input node with the store's value.  Apply itself repaints nothing on
        the checkout, rightly: the screen's items bind `cart.promoCode`
        ("Discount (AUTUMN15)"), and an item's bind is looked up before the
        store (BindingScope)."""
        page = self.page.open("view/screen/checkout")
        code = f"TEST{random.randrange(1000, 9999)}"
        html_before = page.screen_html()
        patches_before = page.sdui_count("patches")
        actions_before = page.events().count("action")
        self.assertNotEqual(page.store_value("cart.promoCode"), code)
        self.assertNotEqual(self.promo_value_attribute(), code)

        self.type_into(page.wait(lambda: page.find(PROMO_INPUT), f"{PROMO_INPUT} in the screen"), code)
        # A person reads what they typed before tapping: the value reaches
        # the store and comes back as a patch of the field.
        page.wait(lambda: page.store_value("promoCode") == code,
                  f"pre#sdui-dev-store to show promoCode = {code!r} after typing it")
        page.wait(lambda: self.promo_value_attribute() == code,
                  f"the server to patch the promo field with value={code!r}")
        self.assertGreater(page.sdui_count("patches"), patches_before, "the field changed without a patch")
        self.assertNotEqual(page.screen_html(), html_before)

        page.wait(lambda: page.screen_button("Apply"), "the screen's Apply button").click()
        page.wait(lambda: page.store_value("cart.promoCode") == code,
                  f"pre#sdui-dev-store to show cart.promoCode = {code!r} after Apply")
        page.wait(lambda: page.events().count("action") > actions_before,
                  'a new li[data-event="action"] in ol#sdui-dev-events')
        page.wait(lambda: "promo_applied" in page.events(), "the Apply sequence's track event in the log")
        self.assertEqual(page.count(FIELD_MESSAGE), 0, "a field message shows after a valid Apply")
        self.assertTrue(page.hidden("#sdui-dev-banner"), "the banner shows though no file is broken")

    def test_tap_right_after_typing_sees_typed_value(self):
        """Apply tapped at once after the last key (as a test driver, or a
        quick person, does) still applies what was typed: the page must not
        send the tap ahead of the typed value."""
        page = self.page.open("view/screen/checkout")
        code = f"FAST{random.randrange(1000, 9999)}"
        self.type_into(page.wait(lambda: page.find(PROMO_INPUT), f"{PROMO_INPUT} in the screen"), code)
        page.wait(lambda: page.screen_button("Apply"), "the screen's Apply button").click()
        page.wait(lambda: page.store_value("cart.promoCode") == code,
                  f"cart.promoCode = {code!r}: Apply tapped right after typing ran on the value typed")

    def test_required_field_left_empty_shows_validation_message(self):
        """Clearing the required promo code and tapping Apply shows the
        validate action's message on the field, and stops the sequence."""
        page = self.page.open("view/screen/checkout")
        self.assertEqual(page.count(FIELD_MESSAGE), 0, "a field message shows before any input")
        self.type_into(page.wait(lambda: page.find(PROMO_INPUT), f"{PROMO_INPUT} in the screen"), "")
        page.wait(lambda: page.screen_button("Apply"), "the screen's Apply button").click()
        page.wait(lambda: page.count(FIELD_MESSAGE) > 0, f"a {FIELD_MESSAGE} after Apply on an empty field")
        message = page.text(FIELD_MESSAGE)
        self.assertTrue(message, "the .sdui-field-message is empty")
        self.assert_message_on_promo_field(page, message)
        page.wait(lambda: "validate" in page.text("#sdui-dev-issues"),
                  "ul#sdui-dev-issues to list the refused validate step")
        self.assertNotIn("promo_applied", page.events(), "the sequence went on past a failed validate")
        self.assertIsNone(page.store_value("cart.promoCode"), "a failed validate still ran the `set` after it")

    def assert_message_on_promo_field(self, page, message):
        """The field message sits in the node of the promo-code field."""
        self.assertTrue(page.driver.execute_script(
            "const m = document.querySelector(arguments[0]);"
            "const f = m && m.closest('[data-path]');"
            "return !!(f && f.querySelector('input[name=\"promoCode\"]'));", FIELD_MESSAGE),
            f"the message {message!r} is not on the promoCode field")

    def test_refused_input_shows_message(self):
        """Typing a value the store's rules refuse (the required field
        emptied) shows the message on the input without any tap, and the
        refused value is not written."""
        page = self.page.open("view/screen/checkout")
        code = f"KEEP{random.randrange(1000, 9999)}"
        field = page.wait(lambda: page.find(PROMO_INPUT), f"{PROMO_INPUT} in the screen")
        self.type_into(field, code)
        page.wait(lambda: page.store_value("promoCode") == code, f"the store's promoCode to be {code!r}")
        self.type_into(page.find(PROMO_INPUT), "")
        page.wait(lambda: page.count(FIELD_MESSAGE) > 0, f"a {FIELD_MESSAGE} once the required field is emptied")
        message = page.text(FIELD_MESSAGE)
        self.assertTrue(message, "the .sdui-field-message is empty")
        self.assert_message_on_promo_field(page, message)
        self.assertEqual(page.store_value("promoCode"), code, "the refused empty value was written to the store")

    def test_old_primitive_map_shows_placeholders(self):
        """An older app's X-Primitives brings placeholders; the empty map
        (the built-in one) takes them away again."""
        page = self.page.open("view/screen/checkout")
        baseline = page.count(PLACEHOLDERS)
        field = page.control("input#sdui-dev-primitives")
        self.type_into(field, OLD_APP_PRIMITIVES)
        page.control("button#sdui-dev-primitives-apply").click()
        old = page.wait(lambda: page.count(PLACEHOLDERS) > baseline and page.count(PLACEHOLDERS),
                        f"placeholders in the screen with X-Primitives {OLD_APP_PRIMITIVES!r} "
                        f"(there were {baseline} before)")
        self.type_into(page.control("input#sdui-dev-primitives"), "")
        page.control("button#sdui-dev-primitives-apply").click()
        page.wait(lambda: page.count(PLACEHOLDERS) == baseline,
                  f"the placeholders to go back to {baseline} with the empty map (there were {old})")

    def test_dark_mode(self):
        """`select#sdui-dev-mode` = dark renders the frame in dark mode."""
        page = self.page.open("view/screen/checkout")
        self.assertEqual(page.count("#sdui-dev-screen .sdui-frame.sdui-mode-dark"), 0,
                         "the checkout starts in dark mode")
        Select(page.control("select#sdui-dev-mode")).select_by_value("dark")
        page.wait(lambda: page.count("#sdui-dev-screen .sdui-frame.sdui-mode-dark") == 1,
                  "the .sdui-frame to carry .sdui-mode-dark")
        Select(page.control("select#sdui-dev-mode")).select_by_value("light")
        page.wait(lambda: page.count("#sdui-dev-screen .sdui-frame.sdui-mode-light") == 1,
                  "the .sdui-frame to carry .sdui-mode-light again")

    def test_locale_picker_renders_the_screen_in_that_locale(self):
        """`select#sdui-dev-locale` lists the folder's catalogs; Arabic draws
        the checkout from ar.json, right to left (the frame's dir, and a
        Row laid out from the right); back to the default, English again."""
        page = self.page.open("view/screen/checkout")
        self.assertIn("Order summary", page.screen_text())
        options = page.driver.execute_script(
            "return Array.from(document.querySelectorAll('#sdui-dev-locale option')).map(o => o.value);")
        self.assertTrue({"ar", "de", "de-CH", "en"} <= set(options), f"the picker offers {options}")
        Select(page.control("select#sdui-dev-locale")).select_by_value("ar")
        page.wait(lambda: page.count('#sdui-dev-screen .sdui-frame[dir="rtl"]') == 1 and "ملخص الطلب" in page.screen_text(),
                  "the frame to be dir=rtl with the Arabic summary title")
        # Right to left for real: the header's first child (Back) is laid out right of its last (the step).
        left = page.driver.execute_script(
            "const row = document.querySelector('#sdui-dev-screen [data-token=\"checkout_header\"]');"
            "const kids = row ? row.children : [];"
            "return kids.length > 1 ? [kids[0].getBoundingClientRect().left, kids[kids.length - 1].getBoundingClientRect().left] : null;")
        self.assertIsNotNone(left, "no header row in the screen")
        self.assertGreater(left[0], left[1], "the header row is not mirrored in Arabic")
        Select(page.control("select#sdui-dev-locale")).select_by_value("")
        page.wait(lambda: page.count('#sdui-dev-screen .sdui-frame[dir="rtl"]') == 0 and "Order summary" in page.screen_text(),
                  "English again with the catalogs' default")

    def test_text_scale_grows_text(self):
        """Text scale 2.0 makes a Text node's computed font size larger."""
        page = self.page.open("view/screen/checkout")
        font_size = ("const e = document.querySelector(arguments[0]);"
                     "return e ? parseFloat(getComputedStyle(e).fontSize) : null;")
        # The first Text node with a data-path: found again by it after the
        # render the new scale brings (in a list, as the root's path "" is falsy).
        [text_path] = page.wait(lambda: page.driver.execute_script(
            "const e = document.querySelector('#sdui-dev-screen [data-primitive=\"Text\"][data-path]');"
            "return e ? [e.getAttribute('data-path')] : null;"), "a Text node with data-path in the screen")
        css = f'#sdui-dev-screen [data-path="{text_path}"]'
        before = page.driver.execute_script(font_size, css)
        self.assertTrue(before, f"no font size for {css}")
        self.set_range(page.control("input#sdui-dev-text-scale"), 2.0)
        after = page.wait(lambda: (lambda v: v if v and v >= before * 1.2 else None)(
            page.driver.execute_script(font_size, css)),
            f"the font size of {css} to grow from {before}px at text scale 2.0")
        self.assertGreater(after, before)

    def set_range(self, element, target):
        """Sets the text-scale input to `target` as a person would: arrow
        keys on a slider (one 0.1 step each), typing on a number field."""
        kind = element.get_attribute("type")
        if kind == "range":
            # send_keys focuses the slider without clicking it (a click
            # would move it to where it lands).
            current = float(self.driver.execute_script("return arguments[0].value;", element))
            step = float(element.get_attribute("step") or 0.1)
            steps = round((target - current) / step)
            key = Keys.ARROW_RIGHT if steps > 0 else Keys.ARROW_LEFT
            element.send_keys(*([key] * abs(steps)))
        else:
            self.type_into(element, f"{target:.1f}")
            element.send_keys(Keys.TAB)
        value = float(self.driver.execute_script("return arguments[0].value;", element))
        self.assertAlmostEqual(value, target, places=5, msg=f"the text-scale input reads {value}, not {target}")

    def test_screen_laid_out_at_device_width(self):
        """The device buttons set the width the screen is laid out at (an app
        on a 320-point phone gets 320 points): 390 px at first, then 320 and
        430; the frame's border is outside it."""
        page = self.page.open("view/screen/checkout")
        widths = ("return [document.querySelector('#sdui-dev-device').clientWidth,"
                  " document.querySelector('#sdui-dev-screen .sdui-frame').getBoundingClientRect().width];")
        page.wait(lambda: page.driver.execute_script(
            "return document.querySelector('#sdui-dev-screen .sdui-frame') !== null;"), "the screen's frame")
        for target in (390, 320, 430):
            if target != 390:
                page.control(f'button[data-device-width="{target}"]').click()
            page.wait(lambda: abs(page.driver.execute_script(widths)[0] - target) <= 0.5,
                      f"#sdui-dev-device to lay its content out {target} px wide")
            device, frame = page.driver.execute_script(widths)
            self.assertAlmostEqual(frame, target, delta=0.5,
                                   msg=f"with the {target} px device, #sdui-dev-device holds {device} px but the "
                                       f"screen's .sdui-frame is laid out at {frame} px")


class HotReloadTests(PlaygroundTestCase):
    """Files edited on disk while the checkout is open: patches, not reloads,
    and the banner for a broken file."""

    def test_token_edit_is_patched_without_reload(self):
        """A new button label in tokens/checkout_pay_button.json appears with
        no page reload and no whole render: a patch."""
        page = self.page.open("view/screen/checkout")
        relative = "tokens/checkout_pay_button.json"
        self.keep_file(relative)
        marker = page.driver.execute_script("window.__sduiMarker = Math.random(); return window.__sduiMarker;")
        renders, patches = page.sdui_count("renders"), page.sdui_count("patches")
        self.assertNotIn("Pay securely", page.screen_text())

        token = read_json(self.file(relative))
        set_prop(token, lambda p: "label" in p, "label", "Pay securely {{totals.total}}")
        write_json(self.file(relative), token)

        page.wait(lambda: "Pay securely" in page.screen_text(), "the new label `Pay securely …` in the screen")
        self.assertEqual(page.driver.execute_script("return window.__sduiMarker;"), marker,
                         "the page was reloaded (window.__sduiMarker is gone)")
        page.wait(lambda: page.sdui_count("patches") > patches,
                  f"window.sduiDev.patches to grow from {patches}")
        self.assertEqual(page.sdui_count("renders"), renders,
                         "the edit brought a whole render, not a patch")
        self.assertTrue(page.hidden("#sdui-dev-banner"), "the banner shows after a valid edit")

    def assert_banner_names(self, page, relative, what):
        """Waits for the banner to show, naming `relative`; returns its text."""
        page.wait(lambda: not page.hidden("#sdui-dev-banner") and relative in page.text("#sdui-dev-banner"),
                  f"#sdui-dev-banner to show and name {relative} ({what})")
        return page.text("#sdui-dev-banner")

    def test_invalid_json_shows_banner_and_keeps_last_render(self):
        """A truncated token shows the banner with the file and its line and
        column; the screen keeps its last good render; the fix hides it."""
        page = self.page.open("view/screen/checkout")
        relative = "tokens/checkout_header.json"
        original = self.keep_file(relative)
        self.assertTrue(page.hidden("#sdui-dev-banner"), "the banner shows before anything is broken")
        screen_before = page.screen_text()
        self.assertIn("Checkout", screen_before)

        write_text(self.file(relative), original[: len(original) // 2])
        banner = self.assert_banner_names(page, relative, "truncated JSON")
        self.assertRegex(banner, r"(?i)line\s*\d+|column\s*\d+|\$[.\[]",
                         "the banner names no place (line/column or JSON path)")
        self.assertGreaterEqual(page.count("#sdui-dev-banner li"), 1, "the banner has no li per broken file")
        self.assertEqual(page.count("#sdui-dev-screen .sdui-frame"), 1, "the last good render is gone")
        self.assertIn("Checkout", page.screen_text(), "the screen lost its header: the last good render did not stay")
        self.assertIn("Pay CHF 199.75", page.screen_text(), "the screen lost its pay button")

        write_text(self.file(relative), original)
        page.wait(lambda: page.hidden("#sdui-dev-banner"), "#sdui-dev-banner to hide once the file is fixed")
        self.assertIn("Checkout", page.screen_text())

    def test_rule_break_shows_banner(self):
        """Valid JSON that breaks a token's rules (a string `version`) shows
        the banner naming the file; putting it back hides it."""
        page = self.page.open("view/screen/checkout")
        relative = "tokens/checkout_header.json"
        original = self.keep_file(relative)
        token = json.loads(original)
        token["version"] = "one"
        write_json(self.file(relative), token)
        banner = self.assert_banner_names(page, relative, 'a string "version"')
        self.assertRegex(banner, r"(?i)line\s*\d+|column\s*\d+|\$", "the banner names no place")
        self.assertIn("version", banner, "the banner does not say which rule broke (the version)")
        self.assertIn("Checkout", page.screen_text(), "the last good render did not stay")

        write_text(self.file(relative), original)
        page.wait(lambda: page.hidden("#sdui-dev-banner"), "#sdui-dev-banner to hide once the token is fixed")

        # A token without its primitive breaks a rule too.
        token = json.loads(original)
        del token["primitive"]
        write_json(self.file(relative), token)
        banner = self.assert_banner_names(page, relative, 'no "primitive"')
        self.assertIn("primitive", banner, "the banner does not say which rule broke (the primitive)")
        self.assertIn("Checkout", page.screen_text(), "the last good render did not stay")
        write_text(self.file(relative), original)
        page.wait(lambda: page.hidden("#sdui-dev-banner"), "#sdui-dev-banner to hide once the token is fixed")


class FlowTests(PlaygroundTestCase):
    """A flow's page (Examples' onboarding)."""

    def test_flow_forward_by_tap_and_back(self):
        """The welcome screen's Get started goes to the goal screen;
        `#sdui-dev-back` comes back."""
        page = self.page.open("view/flow/onboarding")
        page.wait(lambda: "Train smarter" in page.screen_text(), "the welcome screen (`Train smarter`)")
        page.wait(lambda: page.screen_button("Get started"), "the `Get started` button").click()
        page.wait(lambda: "What is your goal?" in page.screen_text(), "the goal screen after Get started")
        self.assertNotIn("Train smarter", page.screen_text())
        page.control("button#sdui-dev-back").click()
        page.wait(lambda: "Train smarter" in page.screen_text() and "What is your goal?" not in page.screen_text(),
                  "the welcome screen again after #sdui-dev-back")


def main(argv):
    """`test_playground.py [SDUI_EXE] [unittest options]`: the executable may
    come first instead of through SDUI_EXE."""
    if len(argv) > 1 and not argv[1].startswith("-"):
        os.environ["SDUI_EXE"] = argv[1]
        argv = argv[:1] + argv[2:]
    unittest.main(module=__name__, argv=argv)


if __name__ == "__main__":
    main(sys.argv)
