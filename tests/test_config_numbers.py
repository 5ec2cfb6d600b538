"""Numeric settings: a float, an infinity or a value out of range is a configuration error naming the key
(exit 2, one line), wherever it comes from — never an internal error, never silently truncated."""

from __future__ import annotations

from dataclasses import fields

import pytest

from nanodream.cli import app
from nanodream.config import RANGES, ConfigError, Settings, load_settings
from nanodream.fleet.config import load_fleet_config
from tests.support.cli import runner

INTEGER_SETTINGS = [f.name for f in fields(Settings) if f.type == "int"]
FLOAT_SETTINGS = [f.name for f in fields(Settings) if f.type.startswith("float")]


def test_every_numeric_setting_has_a_range():
    assert set(RANGES) == set(INTEGER_SETTINGS) | set(FLOAT_SETTINGS)


@pytest.mark.parametrize("name", INTEGER_SETTINGS)
@pytest.mark.parametrize("raw", ["1.5", "2.0", "1e400", "inf", "-inf", "nan", "10000000000000000000000000"])
def test_an_integer_setting_refuses_floats_infinities_and_huge_values(workspace, name, raw):
    workspace.config_file.write_text(f"{name} = {raw}\n")
    with pytest.raises(ConfigError, match=f"nanodream.toml: {name} must be a whole number|^{name} must be a whole"):
        load_settings(workspace, environ={})


@pytest.mark.parametrize("name", INTEGER_SETTINGS)
@pytest.mark.parametrize("raw", ["1.5", "1e400", "inf", "9" * 40, "-1"])
def test_an_integer_variable_is_refused_the_same_way(workspace, name, raw):
    with pytest.raises(ConfigError, match=name):
        load_settings(workspace, environ={f"NANODREAM_{name.upper()}": raw})


@pytest.mark.parametrize("name", FLOAT_SETTINGS)
@pytest.mark.parametrize("raw", ["1e400", "inf", "-inf", "nan", "1e300", "1" + "0" * 400, "-1"])
def test_a_float_setting_refuses_infinities_and_values_out_of_range(workspace, name, raw):
    workspace.config_file.write_text(f"{name} = {raw}\n")
    with pytest.raises(ConfigError, match=name):
        load_settings(workspace, environ={})


def test_values_in_range_still_load(workspace):
    workspace.config_file.write_text("batch_tokens = 1_000_000\ntimeout = 30\nmax_retries = 0\nhost_wait = 0\n"
                                     "archive_after_days = 36500\npressure_ratio = 1\n")
    settings = load_settings(workspace, environ={"NANODREAM_MAX_BATCHES": " 7 "})
    assert (settings.batch_tokens, settings.timeout, settings.max_batches) == (1_000_000, 30.0, 7)


@pytest.mark.parametrize("toml", ["batch_tokens = 1e400", "batch_tokens = 1.5", "max_retries = 1e9",
                                  "timeout = 1e400", "archive_after_days = 99999999999"])
def test_the_command_line_says_one_line_naming_the_key_and_exits_2(workspace, toml):
    workspace.config_file.write_text(toml + "\n")
    for command in (["run"], ["status"], ["run", "--json"]):
        done = runner.invoke(app, [*command, "-w", str(workspace.root)])
        assert done.exit_code == 2, (command, done.output)
        said = done.output.strip()
        assert toml.split(" ")[0] in said and "internal error" not in said and "Traceback" not in said
        assert len(said.splitlines()) <= 2 or command[-1] == "--json"


@pytest.mark.parametrize("flag", [["--host-wait", "inf"], ["--host-wait", "nan"], ["--host-wait", "1e300"],
                                  ["--lookback", "99999999999"]])
def test_numeric_flags_out_of_range_are_usage_errors(workspace, flag):
    done = runner.invoke(app, ["run", "-w", str(workspace.root), *flag])
    assert done.exit_code == 2, done.output
    assert "internal error" not in done.output


@pytest.mark.parametrize("line,key", [("lock_ttl = inf", "lock_ttl"), ("heartbeat = 1e400", "heartbeat"),
                                      ("job_timeout = 1.5", "job_timeout"), ("keep_failed = 1e300", "keep_failed"),
                                      ("max_cost_per_day = nan", "max_cost_per_day"),
                                      ("max_runs_per_day = 99999999999999", "max_runs_per_day")])
def test_fleet_numbers_are_checked_the_same_way(tmp_path, line, key):
    path = tmp_path / "fleet.toml"
    path.write_text(f"[fleet]\n{line}\n")
    with pytest.raises(ConfigError, match=f"fleet.toml \\[fleet\\]: {key} must be"):
        load_fleet_config(path)


@pytest.mark.parametrize("every", ["99999999999999h", "9999999999999999999999d", "367d"])
def test_a_schedule_interval_too_long_for_a_date_is_refused_in_one_line(workspace, every):
    done = runner.invoke(app, ["schedule", "-w", str(workspace.root), "--every", every, "--print-crontab"])
    assert done.exit_code == 2 and "too long" in done.output and "internal error" not in done.output
