"""Every metric's settings, and the run's options, as records
(``bleustream.frozen``): equal and hashed by their fields, never changed in
place, copied with ``_replace`` and checked again, and carried to worker
processes by pickle through their own checks."""

from __future__ import annotations

import pickle

import pytest

from bleustream.frozen import field_names
from bleustream.inputs.options import ReadOptions
from bleustream.metrics.registry import CORPUS_DECLARED, STREAM_DECLARED, Spec, metric_of
from bleustream.metrics.stats_record import counting_settings, scoring_settings
from bleustream.output.records import Record
from bleustream.run.state import RunOptions

NAMES = sorted({*STREAM_DECLARED, *CORPUS_DECLARED})


@pytest.mark.parametrize("name", NAMES)
def test_settings_are_frozen_records(name: str) -> None:
    settings_class = metric_of(name).Settings
    settings = settings_class()
    fields = field_names(settings_class)
    assert fields and list(settings._asdict()) == list(fields)
    same = settings_class(**settings._asdict())
    assert same == settings and hash(same) == hash(settings)
    assert settings != object() and settings != settings._asdict()
    with pytest.raises(AttributeError, match="cannot assign"):
        setattr(settings, fields[0], getattr(settings, fields[0]))
    with pytest.raises(AttributeError):
        settings.not_a_field = 1  # type: ignore[attr-defined]
    with pytest.raises(TypeError, match="no field 'nope'"):
        settings._replace(nope=1)
    back = pickle.loads(pickle.dumps(settings))
    assert back == settings and type(back) is settings_class
    assert repr(settings).startswith("Settings(") and f"{fields[0]}=" in repr(settings)


def test_a_copy_is_checked_as_a_new_one_is() -> None:
    bleu = metric_of("bleu")
    settings = bleu.Settings(smooth_method="floor", smooth_value=0.5)
    assert settings._replace(max_order=2).max_order == 2
    assert settings.max_order == 4  # the original is unchanged
    with pytest.raises(ValueError, match="maximum n-gram order"):
        settings._replace(max_order=0)
    with pytest.raises(ValueError, match="unknown tokenizer"):
        bleu.Settings(tokenize="no-such")
    with pytest.raises(ValueError, match="character and word n-gram orders"):
        metric_of("chrf").Settings(char_order=0, word_order=0)


def test_a_stats_record_leaves_out_settings_of_the_output_only() -> None:
    bleu = metric_of("bleu")
    spec = Spec(bleu, bleu.Settings(orders=True, smooth_method="floor"))
    recorded = {**counting_settings(spec), **scoring_settings(spec)}
    assert "orders" not in recorded
    assert recorded["smooth_method"] == "floor"
    assert sorted(recorded) == sorted(set(field_names(bleu.Settings)) - {"orders"})
    comet = metric_of("comet")
    kept = field_names(comet.Settings, output=False)
    assert kept == ("identity", "about")


def test_the_run_options_pickle_with_their_settings() -> None:
    chrf = metric_of("chrf")
    options = RunOptions(
        (Spec(chrf, chrf.Settings(word_order=2)),),
        ReadOptions(refs=("ref.txt",), inputs=("a.txt",), keep_lines=frozenset({1, 3})),
        format="json",
    )
    back = pickle.loads(pickle.dumps(options))
    assert back == options
    assert back.reading.scoring_overrides == {} and back.reading.keep_lines == frozenset({1, 3})
    assert options.with_reading(skip_bad_lines=True).reading.skip_bad_lines
    assert not options.reading.skip_bad_lines
    with pytest.raises(Exception, match="num-refs"):
        options.with_reading(num_refs=2, refs=())  # checked again


def test_records_compare_by_their_fields() -> None:
    record = Record("corpus", (), 3, system="a")
    assert record == Record("corpus", (), 3, system="a")
    assert record._replace(partial=True) != record
    assert record._replace(partial=True).partial and not record.partial
