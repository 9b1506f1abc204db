"""The core's Parquet writer (crates/tcplab-core/src/observe/parquet.rs), read by pyarrow and
pandas: the same DataFrames as the numpy path gives, for every table of the golden corpus."""
import io
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from pandas.testing import assert_frame_equal

from tcplab import _core
from tcplab.results import TABLES, _frame, _read_table
from tcplab.scenario import load_scenario, to_json

GOLDEN = sorted((Path(__file__).resolve().parent / "golden" / "scenarios").glob("*.toml"))


def read(data: bytes) -> pd.DataFrame:
    return pd.read_parquet(io.BytesIO(data))


def same_frame(a: pd.DataFrame, b: pd.DataFrame) -> None:
    assert_frame_equal(a, b, check_dtype=True, check_index_type=True, check_column_type=True, check_exact=True)
    assert isinstance(b.index, pd.RangeIndex) and list(a.columns) == list(b.columns)


@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: p.stem)
def test_every_golden_table_reads_back_as_the_numpy_paths_frame(path):
    spec = to_json(load_scenario(path))
    columns = _core.run(spec, 2, None, None)
    files = _core.run(spec, 2, None, None, output="parquet")
    for name in TABLES:
        expected = _frame(columns[name])
        assert files["rows"][name] == len(expected)
        same_frame(expected, _read_table(files[name]))
        raw = read(files[name])
        if len(expected):
            same_frame(expected, raw)
        else:
            # pandas makes a column of no strings float64 (it infers that from an empty list);
            # the file says string, and _read_table gives the frame the numpy path gives.
            assert list(raw.columns) == list(expected.columns) and len(raw) == 0
            for c in raw.columns:
                assert raw[c].dtype == expected[c].dtype or pd.api.types.is_string_dtype(raw[c])


def test_the_golden_corpus_has_what_the_writer_must_handle():
    seen = {"empty table": False, "nan": False, "str": False}
    for path in GOLDEN:
        out = _core.run(to_json(load_scenario(path)), 1, None, None)
        for name in TABLES:
            cols = out[name]
            seen["empty table"] |= bool(cols) and all(len(v) == 0 for v in cols.values())
            seen["nan"] |= any(isinstance(v, np.ndarray) and v.dtype.kind == "f" and np.isnan(v).any()
                               for v in cols.values())
            seen["str"] |= any(isinstance(v, list) and v for v in cols.values())
    assert all(seen.values()), seen


def test_types_nan_unicode_and_u64_beyond_i64():
    data = _core._parquet_table([
        ("x", ("f64", [1.5, math.nan, -0.0, math.inf])),
        ("big", ("u64", [0, 2**63, 2**64 - 1, 7])),
        ("small", ("u64", [0, 2**63 - 1, 1, 2])),
        ("s", ("str", ["é→✓", "", "a" * 300, "tab\tnew\nline"])),
    ])
    f = pq.ParquetFile(io.BytesIO(data))
    assert f.metadata.format_version == "1.0" and f.metadata.num_row_groups == 1
    assert f.metadata.created_by.startswith("tcplab version ")
    assert str(f.schema_arrow) == "x: double not null\nbig: uint64 not null\nsmall: int64 not null\ns: string not null"
    col = f.metadata.row_group(0).column(0)
    assert col.compression == "UNCOMPRESSED" and col.encodings == ("PLAIN",)
    frame = read(data)
    assert frame.dtypes.astype(str).tolist() == ["float64", "uint64", "int64", "str"]
    assert np.array_equal(frame["x"].to_numpy(), [1.5, math.nan, -0.0, math.inf], equal_nan=True)
    assert math.copysign(1, frame["x"][2]) == -1
    assert frame["big"].tolist() == [0, 2**63, 2**64 - 1, 7]
    assert frame["small"].tolist() == [0, 2**63 - 1, 1, 2]
    assert frame["s"].tolist() == ["é→✓", "", "a" * 300, "tab\tnew\nline"]


def test_a_large_table_is_split_into_row_groups_that_read_back_whole():
    n = 1000
    strings = [str(i) * (i % 7) for i in range(n)]
    data = _core._parquet_table([("s", ("str", strings)), ("v", ("u64", list(range(n))))], row_group_bytes=1000)
    f = pq.ParquetFile(io.BytesIO(data))
    assert f.metadata.num_row_groups > 8
    assert sum(f.metadata.row_group(i).num_rows for i in range(f.metadata.num_row_groups)) == n
    frame = read(data)
    assert frame["s"].tolist() == strings and frame["v"].tolist() == list(range(n))


def test_tables_without_rows_or_columns():
    empty = read(_core._parquet_table([("x", ("f64", [])), ("n", ("u64", [])), ("s", ("str", []))]))
    assert empty.shape == (0, 3) and empty.dtypes.astype(str).tolist() == ["float64", "int64", "str"]
    assert read(_core._parquet_table([])).shape == (0, 0)


def test_bad_output_and_preview_requests_are_value_errors():
    spec = '{"sim": {"duration": 1}, "nodes": [{"name": "a"}, {"name": "b"}], ' \
           '"links": [{"a": "a", "b": "b", "rate": 1e6, "delay": 0.01}], "flows": [{"src": "a", "dst": "b"}]}'
    with pytest.raises(ValueError, match="output"):
        _core.run(spec, 1, None, None, output="csv")
    with pytest.raises(ValueError, match="no table"):
        _core.run(spec, 1, None, None, output="parquet", previews={"nope": (3, None)})
    with pytest.raises(ValueError, match="previews"):
        _core.run(spec, 1, None, None, previews={"flows": (3, None)})
