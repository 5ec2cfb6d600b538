"""`nanodream serve` for real: uvicorn on a free port, driven by Debian's headless Chromium through selenium.

The browser tests need the chromium and chromium-driver packages (`.ci/run` installs them); without them
they fail rather than skip. Screenshots of each page go to $SCREENSHOT_DIR (default: the test's
temporary directory), to be looked at.
"""

from __future__ import annotations

import os
import re
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest
import uvicorn

from nanodream.config import Settings
from nanodream.run.dream import run_dream
from nanodream.serve.app import build_app
from nanodream.serve.guard import Guard
from tests.support.cli import runner
from tests.support.redis_server import free_port
from tests.support.workspaces import entry, git, snapshot, write_history

CHROMIUM, DRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
PAGE_LOAD_LIMIT = 120  # seconds: only a browser that hangs takes this long; the verdict is what the page says


class PageServer:
    """The app under a real uvicorn server in a thread, as `nanodream serve` runs it."""

    def __init__(self, workspace, host: str = "127.0.0.1", token: str | None = None, names: tuple = ()) -> None:
        self.port = free_port()
        self.guard = Guard(host=host, port=self.port, token=token, names=names)
        config = uvicorn.Config(build_app(workspace, self.guard), host="127.0.0.1", port=self.port,
                                log_level="warning")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> PageServer:
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started:
            assert time.monotonic() < deadline, "the page server did not start"
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(10)


@pytest.fixture
def dreamed(workspace):
    """A workspace with two dreams (the second appends to the same section as the first)."""
    write_history(workspace, [entry(1, "[durable] The API is written in Go."),
                              entry(2, "[permanent] User prefers concise answers.")])
    run_dream(workspace, Settings())
    with workspace.history_file.open("a") as handle:
        handle.write('{"cursor": 3, "timestamp": "2026-10-02 09:00", "content": "[durable] Deploys run on Fridays."}\n')
    run_dream(workspace, Settings())
    return workspace


@pytest.fixture
def server(dreamed) -> Iterator[PageServer]:
    with PageServer(dreamed) as running:
        yield running


@pytest.fixture
def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    assert Path(CHROMIUM).exists() and Path(DRIVER).exists(), "install Debian's chromium and chromium-driver"
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,900"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    driver.implicitly_wait(5)
    yield driver
    driver.quit()


def loaded(browser, element) -> None:
    """Click `element` and wait for the page it loads: reading before then would read the page it left (a click
    returns before the browser has navigated, and a busy machine shows it).

    The page being left is marked on its `window`, which a navigation replaces. Asking an element of the old page
    whether it is stale is not enough: mid-navigation Chromium may answer with an "unknown error" instead."""
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.support.ui import WebDriverWait

    def arrived(driver) -> bool:
        try:
            return driver.execute_script(
                "return window.nanodreamLeaving === undefined && document.readyState === 'complete'")
        except WebDriverException:  # between two documents: neither can answer yet
            return False

    browser.execute_script("window.nanodreamLeaving = true")
    element.click()
    WebDriverWait(browser, PAGE_LOAD_LIMIT).until(arrived)


@pytest.fixture
def shots(tmp_path) -> Path:
    folder = Path(os.environ.get("SCREENSHOT_DIR") or tmp_path / "screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def test_open_a_dream_restore_it_and_see_the_restore_on_the_timeline(server, dreamed, browser, shots):
    from selenium.webdriver.common.by import By

    browser.get(server.url + "/")
    rows = browser.find_elements(By.CSS_SELECTOR, "#timeline tr.commit")
    assert [r.find_element(By.CSS_SELECTOR, ".kind").text for r in rows] == ["dream", "dream", "init"]
    browser.save_screenshot(str(shots / "timeline.png"))
    loaded(browser, rows[0].find_element(By.CSS_SELECTOR, "a"))
    assert "Deploys run on Fridays." in browser.find_element(By.CSS_SELECTOR, "pre.diff").text
    assert "#3" in browser.page_source  # the history it consumed
    browser.save_screenshot(str(shots / "dream.png"))
    loaded(browser, browser.find_element(By.ID, "restore-button"))
    assert "restored" in browser.find_element(By.ID, "note").text
    kinds = [e.text for e in browser.find_elements(By.CSS_SELECTOR, "#timeline tr.commit .kind")]
    assert kinds[0] == "restore" and len(kinds) == 4
    browser.save_screenshot(str(shots / "after-restore.png"))
    assert "Deploys run on Fridays." not in (dreamed.root / "memory/MEMORY.md").read_text()
    assert "written in Go" in (dreamed.root / "memory/MEMORY.md").read_text()  # the earlier dream stays


def test_a_cross_site_post_is_refused_and_changes_nothing(server, dreamed):
    head = git(dreamed, "rev-parse", "HEAD")
    before = snapshot(dreamed)
    page = httpx.get(server.url + f"/commit/{head}")
    session = page.cookies["nanodream_session"]
    token = page.text.split('name="csrf" value="', 1)[1].split('"', 1)[0]
    cookies = {"nanodream_session": session}
    evil = httpx.post(server.url + f"/commit/{head}/restore", data={"csrf": token}, cookies=cookies,
                      headers={"Origin": "http://evil.example"})
    assert evil.status_code == 403
    forged = httpx.post(server.url + f"/commit/{head}/restore", data={"csrf": "guess"}, cookies=cookies,
                        headers={"Origin": server.url})
    assert forged.status_code == 403
    proposal = httpx.post(server.url + "/proposal/abcdef12/accept", data={"csrf": token}, cookies=cookies,
                          headers={"Origin": "http://evil.example"})
    assert proposal.status_code == 403
    assert snapshot(dreamed) == before
    fine = httpx.post(server.url + f"/commit/{head}/restore", data={"csrf": token}, cookies=cookies,
                      headers={"Origin": server.url})
    assert fine.status_code == 303 and snapshot(dreamed) != before


def test_only_its_own_host_names_are_answered_and_no_path_leaves_the_workspace(server):
    assert httpx.get(server.url + "/").status_code == 200
    assert httpx.get(server.url + "/", headers={"Host": f"localhost:{server.port}"}).status_code == 200
    assert httpx.get(server.url + "/", headers={"Host": "attacker.example"}).status_code == 400  # DNS rebinding
    for path in ("/commit/..%2F..%2Fetc%2Fpasswd", "/commit/HEAD", "/../../etc/passwd", "/static/x"):
        assert httpx.get(server.url + path).status_code == 404, path


def test_off_localhost_every_request_needs_the_token(dreamed):
    with PageServer(dreamed, host="0.0.0.0", token="s3cret") as running:
        assert httpx.get(running.url + "/").status_code == 401
        first = httpx.get(running.url + "/?token=s3cret")
        assert first.status_code == 200
        assert httpx.get(running.url + "/", cookies={"nanodream_token": "s3cret"}).status_code == 200


def interface_addresses() -> list[str]:
    """Every address `ip` lists on this machine's interfaces: the test's own view, not nanodream's."""
    listing = subprocess.run(["ip", "-o", "addr"], capture_output=True, text=True, check=True).stdout
    return [line.split()[3].split("/")[0] for line in listing.splitlines()]


def in_host(address: str) -> str:
    return f"[{address}]" if ":" in address else address


@pytest.mark.parametrize("bind", ["0.0.0.0", "::"])
def test_on_every_interface_it_answers_to_each_address_of_the_machine_and_nothing_else(dreamed, bind):
    with PageServer(dreamed, host=bind, token="s3cret") as running:
        for address in interface_addresses():
            answer = httpx.get(running.url + "/?token=s3cret", headers={"Host": f"{in_host(address)}:{running.port}"})
            assert answer.status_code == 200, address
        for host in ("attacker.example", "0.0.0.0", f"192.0.2.254:{running.port}", f"agent.home.arpa:{running.port}"):
            assert httpx.get(running.url + "/?token=s3cret", headers={"Host": host}).status_code == 400, host


def test_allow_host_adds_the_names_given_and_no_others(dreamed):
    with PageServer(dreamed, host="0.0.0.0", token="s3cret", names=("agent.home.arpa",)) as running:
        named = httpx.get(running.url + "/?token=s3cret", headers={"Host": f"agent.home.arpa:{running.port}"})
        assert named.status_code == 200
        other = httpx.get(running.url + "/?token=s3cret", headers={"Host": f"other.home.arpa:{running.port}"})
        assert other.status_code == 400


def test_serve_on_every_interface_prints_a_url_a_person_can_open(workspace, monkeypatch):
    import uvicorn

    from nanodream.cli import app

    started = {}
    monkeypatch.setattr(uvicorn, "run", lambda application, **options: started.update(options))
    done = runner.invoke(app, ["serve", "-w", str(workspace.root), "--host", "0.0.0.0", "--port", "8799",
                                    "--allow-host", "agent.home.arpa"])
    assert done.exit_code == 0, done.output
    url = urlsplit(re.search(r"http://\S+", done.output).group(0))
    assert url.hostname in interface_addresses() and url.hostname not in ("0.0.0.0", "127.0.0.1")
    assert url.port == 8799 and url.query.startswith("token=")
    assert "agent.home.arpa" in done.output and started["host"] == "0.0.0.0"


def test_accept_a_pending_proposal_and_ask_why_a_line_is_there(server, dreamed, browser, shots):
    from selenium.webdriver.common.by import By

    from nanodream.run.context import RunOptions

    with dreamed.history_file.open("a") as handle:
        handle.write('{"cursor": 4, "timestamp": "2026-10-03 09:00", "content": "[durable] Backups run nightly."}\n')
    run_dream(dreamed, Settings(), RunOptions(review=True))  # a proposal, not a change of the files
    assert "Backups run nightly." not in (dreamed.root / "memory/MEMORY.md").read_text()

    browser.get(server.url + "/")
    assert len(browser.find_elements(By.CSS_SELECTOR, "#proposals tr.proposal")) == 1
    browser.save_screenshot(str(shots / "proposals.png"))
    loaded(browser, browser.find_element(By.CSS_SELECTOR, "#proposals button.accept"))
    assert "accepted" in browser.find_element(By.ID, "note").text
    assert not browser.find_elements(By.CSS_SELECTOR, "#proposals")
    assert "Backups run nightly." in (dreamed.root / "memory/MEMORY.md").read_text()

    box = browser.find_element(By.ID, "why-box")
    box.send_keys("Deploys run on Fridays")
    box.submit()
    answer = browser.find_element(By.ID, "why-answer").text
    assert "memory/MEMORY.md" in answer and "dream" in answer and "[durable] Deploys run on Fridays." in answer
    browser.save_screenshot(str(shots / "why.png"))
    browser.get(server.url + "/why?q=nothing+like+this+anywhere")
    assert browser.find_element(By.ID, "why-problem").text


def test_the_skills_page_shows_what_nanodream_skills_prints(server, dreamed, browser, shots):
    import json as jsonlib

    from selenium.webdriver.common.by import By

    from nanodream.cli import app

    for name in ("deploy", "rollback"):
        path = dreamed.root / "skills" / name / "SKILL.md"
        path.parent.mkdir(parents=True)
        path.write_text(f"---\nname: {name}\ndescription: How to {name}.\n---\n\n1. Do it.\n")
    with dreamed.history_file.open("a") as handle:
        for cursor, content in ((5, "[durable] Ran the deploy skill, then the rollback skill."),
                                (6, "[correction] Don't deploy before the tests pass.")):
            handle.write(jsonlib.dumps({"cursor": cursor, "timestamp": "2026-10-04 09:00", "session_key": "ops",
                                        "content": content}) + "\n")

    browser.get(server.url + "/")
    loaded(browser, browser.find_element(By.ID, "skills-link"))
    row = browser.find_element(By.ID, "skill-deploy").text
    browser.save_screenshot(str(shots / "skills.png"))
    printed = jsonlib.loads(runner.invoke(app, ["skills", "-w", str(dreamed.root), "--json"]).output)
    deploy = next(s for s in printed["skills"] if s["name"] == "deploy")
    assert deploy["co_used"] == ["rollback"] and deploy["last_used"] == "2026-10-04" and deploy["thin"]
    assert "How to deploy." in row and "rollback" in row and "2026-10-04" in row and "thin" in row


def test_the_memory_view_shows_today_or_any_day_and_pins_and_forgets_per_line(workspace, browser, shots,
                                                                                monkeypatch):
    from selenium.webdriver.common.by import By

    def dream_on(when: str, cursor: int, day: str, content: str, session: str) -> None:
        with workspace.history_file.open("a") as handle:
            handle.write(f'{{"cursor": {cursor}, "timestamp": "{day} 09:00", "session_key": "{session}", '
                         f'"content": "{content}"}}\n')
        monkeypatch.setenv("GIT_COMMITTER_DATE", when)
        monkeypatch.setenv("GIT_AUTHOR_DATE", when)
        assert run_dream(workspace, Settings()).outcome == "committed"

    dream_on("2026-03-14T20:00:00Z", 1, "2026-03-14", "[durable] The user lives in Ghent.", "chat-a")
    dream_on("2026-06-05T20:00:00Z", 2, "2026-06-02", "[correction] User moved to Utrecht.", "chat-b")
    dream_on("2026-06-06T20:00:00Z", 3, "2026-06-06", "[durable] The API is written in Go.", "chat-c")
    monkeypatch.delenv("GIT_COMMITTER_DATE")
    monkeypatch.delenv("GIT_AUTHOR_DATE")

    with PageServer(workspace) as server:
        browser.get(server.url + "/")
        loaded(browser, browser.find_element(By.ID, "memory-link"))
        today = browser.find_element(By.CSS_SELECTOR, "[data-path='USER.md']").text
        assert "User moved to Utrecht." in today and "Ghent" not in today
        browser.save_screenshot(str(shots / "memory.png"))

        browser.execute_script("document.getElementById('as-of').value = '2026-04-01'")
        browser.find_element(By.ID, "as-of-form").submit()
        then = browser.find_element(By.CSS_SELECTOR, "[data-path='USER.md']").text
        assert "The user lives in Ghent." in then and "Utrecht" not in then
        assert "2026-03-14" in browser.find_element(By.ID, "as-of-commit").text
        assert not browser.find_elements(By.CSS_SELECTOR, "button.pin")  # past days are read, not changed
        browser.save_screenshot(str(shots / "memory-as-of.png"))

        browser.get(server.url + "/memory")
        go = "[data-path='memory/MEMORY.md'] tr.fact button.pin"
        loaded(browser, browser.find_element(By.CSS_SELECTOR, go))
        assert "pinned memory/MEMORY.md" in browser.find_element(By.ID, "note").text
        assert "The API is written in Go. <!-- keep -->" in (workspace.root / "memory/MEMORY.md").read_text()

        loaded(browser, browser.find_element(By.CSS_SELECTOR, "[data-path='USER.md'] tr.fact a.forget"))
        assert "true since 2026-06-02" in browser.find_element(By.ID, "why-life").text.lower()
        loaded(browser, browser.find_element(By.CSS_SELECTOR, "button.forget"))
        assert "forgot 1 history entry" in browser.find_element(By.ID, "note").text
        assert "Utrecht" not in (workspace.root / "USER.md").read_text()

        browser.get(server.url + "/memory?as_of=last+spring")
        assert "not a date" in browser.find_element(By.ID, "memory-problem").text


def test_the_insights_page_shows_each_connection_with_its_sources_and_takes_a_decision(workspace, browser, shots):
    import json as jsonlib

    from selenium.webdriver.common.by import By

    from tests.support.gitdates import commit_at

    decision = "Decided to host the billing service on Hetzner in Falkenstein."
    archive = workspace.root / "memory/archive/2026-03.md"
    archive.parent.mkdir()
    archive.write_text(f"# Archive 2026-03\n\n## Infrastructure (archived 2026-03-04)\n- {decision}\n")
    commit_at(workspace, "2026-03-04T12:00:00Z", "archive")
    write_history(workspace, [entry(1, "[durable] The Hetzner bill doubled after the load balancer went live.",
                                    "telegram:7")])
    run_dream(workspace, Settings())
    [name] = [p.stem for p in (workspace.root / "memory/insights").glob("*.md")]
    with PageServer(workspace) as running:
        browser.get(running.url + "/")
        loaded(browser, browser.find_element(By.ID, "insights-link"))
        card = browser.find_element(By.ID, f"insight-{name}")
        assert "proposed" in card.text and decision in card.text and "session:telegram:7" in card.text
        browser.save_screenshot(str(shots / "insights.png"))
        card.find_element(By.NAME, "note").send_keys("the bill is about hosting")
        loaded(browser, card.find_element(By.CSS_SELECTOR, "button.promote"))
        assert f"{name}: proposed → promoted" in browser.find_element(By.ID, "note").text
        last = jsonlib.loads(workspace.history_file.read_text().splitlines()[-1])
        assert last["session_key"] == f"insight:{name}"
        card = browser.find_element(By.ID, f"insight-{name}")
        assert "promoted: the bill is about hosting" in card.text
        loaded(browser, card.find_element(By.CSS_SELECTOR, "button.reject"))
        assert f"{name}: promoted → rejected" in browser.find_element(By.ID, "note").text
        assert browser.find_element(By.ID, "no-insights")  # out of view
        head, before = git(workspace, "rev-parse", "HEAD"), snapshot(workspace)
        page = httpx.get(running.url + f"/commit/{head}")  # any page with a form hands out the session's token
        token = page.text.split('name="csrf" value="', 1)[1].split('"', 1)[0]
        evil = httpx.post(running.url + f"/insight/{name}/reinforce", data={"csrf": token},
                          cookies={"nanodream_session": page.cookies["nanodream_session"]},
                          headers={"Origin": "http://evil.example"})
        assert evil.status_code == 403 and git(workspace, "rev-parse", "HEAD") == head
        assert snapshot(workspace) == before


def test_the_page_names_the_machine_that_made_each_commit(workspace):
    (workspace.root / "nanodream.local.toml").write_text('[sync]\nmachine = "laptop"\n')
    write_history(workspace, [entry(1, "[durable] The API is written in Go.")])
    run_dream(workspace, Settings(phases=()))
    head = git(workspace, "rev-parse", "HEAD")
    with PageServer(workspace) as running:
        assert '<td class="muted machine">laptop</td>' in httpx.get(running.url + "/").text
        assert '<span class="machine">laptop</span>' in httpx.get(running.url + f"/commit/{head}").text
        why = httpx.get(running.url + "/why", params={"q": "written in Go"}).text
        assert '<span class="machine">laptop</span>' in why
