"""MEASY figure tables from a store that holds only some of a figure's rows."""

from allockit.experiments.measy import MeasySets, aggregate, experiment_tasks, run_measy_task


def _rows(tasks):
    return [{"key": t.key, "ok": True, "method": t.method, "outputs": run_measy_task(t)}
            for t in tasks]


def test_a_store_with_only_easy_rows_gives_a_table_without_variant_checks():
    # a sweep stopped after EASY's runs: the table shows EASY, and the checks that
    # compare the variants are absent rather than a crash
    sets = MeasySets(loads=(0.7,), jobs={"lublin": 30}, models=("lublin", "lublin"),
                     processors=16)
    tasks = experiment_tasks("fig6", sets)
    easy = [t for t in tasks if t.method == "EASY"]
    table = aggregate("fig6", _rows(easy), tasks)
    assert list(table["series"]) == ["EASY"]
    assert "worst_variant_response" not in table["checks"]
    # with every row the variant checks are there
    full = aggregate("fig6", _rows(tasks), tasks)
    assert set(full["checks"]["worst_variant_response"].values()) <= {"KEASY", "REASY", "MEASY"}


def test_an_empty_store_gives_an_empty_table():
    sets = MeasySets(loads=(0.7,), jobs={"lublin": 30}, models=("lublin", "lublin"),
                     processors=16)
    table = aggregate("fig9", [], experiment_tasks("fig9", sets))
    assert table["series"] == {} and table["failed_tasks"] == 0
