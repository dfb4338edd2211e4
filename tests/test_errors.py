"""The error classes by cause (jtau/errors.py): each keeps its base's exit code, survives a worker
process, and is named by its base where a message names a class."""

from __future__ import annotations

import pickle

import pytest

from jtau.errors import (
    CheckFailed,
    EndpointError,
    InputError,
    MapsError,
    OutOfDate,
    SourceError,
    UnknownName,
    ValidationFailed,
    error_name,
)


@pytest.mark.parametrize("cls,base", [(SourceError, InputError), (MapsError, InputError), (EndpointError, InputError),
                                      (UnknownName, InputError), (ValidationFailed, CheckFailed),
                                      (OutOfDate, CheckFailed)])
def test_a_cause_is_its_base_with_its_exit_code(cls, base):
    exc = cls("message", ["detail"], run=("localize", "airline"))
    assert isinstance(exc, base) and exc.exit_code == base.exit_code
    again = pickle.loads(pickle.dumps(exc))
    assert type(again) is cls and (again.message, again.details, again.run) == ("message", ["detail"],
                                                                                ("localize", "airline"))
    assert error_name(exc) == base.__name__
    assert error_name(ValueError("x")) == "ValueError"


def test_the_causes_are_raised_where_they_arise(tmp_path):
    from jtau.cli.common import domains
    from jtau.maps import load_maps

    with pytest.raises(UnknownName, match="unknown domain 'airlnie'"):
        domains("airlnie")
    with pytest.raises(MapsError, match="entity map folder not found"):
        load_maps(tmp_path / "nowhere")
