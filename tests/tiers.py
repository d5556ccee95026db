"""Which tests form the ``quick`` tier, and which the ``static`` one (see tests/README.md).

conftest.py marks the tests named here when they are collected, so no test file carries tier
markers of its own.  The quick tier is one pass over every layer: enough to catch a change that
breaks a stage, a backend or a command, in under a minute on two cores (``pytest -m quick``).
It takes from each file the tests that are cheap and say the most; what they leave out (the
exhaustive, random and every-variant tests) runs in the full suite.  A test marked ``slow`` is
never quick, even in a file listed whole.

QUICK maps a file (relative to tests/) to the tests it gives the quick tier: ``ALL`` for every
test in it, or test names.  A name is a test function's name (every parameter of it), or a
name with the start of a parameter id, ending in ``[`` or holding one (the parameters whose id
starts so).  tests/test_static.py checks that every name is still a test function of its file.
"""
from __future__ import annotations

ALL = ("*",)

QUICK: dict[str, tuple[str, ...]] = {
    # The grammar's reading: parsing, messages with carets, warnings.
    "test_frontend.py": (
        "test_every_construct_parses_and_prints_back_as_equal_abnf", "test_utf8_grammar_round_trips",
        "test_rule_names_are_case_insensitive_and_core_rules_are_available",
        "test_unused_rules_and_undefined_references_in_them_are_warnings",
        "test_errors_are_collected_and_sorted_with_caret_lines", "test_tabs_in_the_source_line_keep_the_caret_aligned",
        "test_deep_nesting_is_refused_clearly_not_with_a_recursion_error"),
    "test_imports.py": ALL,
    # The automata: NFA, subset construction, minimization, their limits.
    "test_compiler.py": (
        "test_utf8_minimal_dfa_has_9_states_and_12_classes", "test_provenance_names_the_rules_each_state_reads",
        "test_limits_can_be_raised", "test_recursive_grammar_is_refused_naming_the_cycle",
        "test_constructs_compile_to_the_right_language", "test_equivalence_check_finds_a_shortest_difference"),
    "test_pipeline.py": ALL,
    "test_golden.py": ALL,
    # The interpreter (any grammar, recursive ones too) and the pushdown validators.
    "test_interpret.py": (
        "test_constructs", "test_left_recursion", "test_middle_recursion_balanced_parens",
        "test_rfc5322_nested_comments", "test_expected_names_every_rule", "test_utf8_exhaustive_up_to_two_bytes",
        "test_chunks_match_whole_buffer_at_every_split", "test_work_limit_is_checked_across_chunks"),
    "test_pushdown.py": (
        "test_a_byte_that_opens_a_nesting_two_ways_is_a_conflict_with_a_witness",
        "test_recursion_with_no_bracket_bytes_is_named",
        "test_nesting_deeper_than_the_limit_is_an_error_not_a_verdict"),
    "test_recursion.py": ALL,
    "test_dfa_pushdown.py": ("test_email_comment_text_lists_its_two_machines",),
    "test_c_pushdown.py": ("test_the_generated_c_compiles_without_warnings",),
    "test_c_sheng.py": ("test_the_plan_has_sheng_only_where_it_applies", "test_the_settings"),
    "test_lexical.py": ("test_json_has_strings_whitespace_and_six_structural_bytes",
                        "test_no_two_stage_path_where_a_condition_fails"),
    "test_js_pushdown.py": ("test_the_module_is_a_pushdown_validator_with_narrow_typed_arrays",),
    "test_json.py": ("test_valid_json_matches", "test_invalid_json_does_not_match"),
    # The case suite's grammars that must be refused, with the message and place of each.
    "test_cases.py": ("test_error_case",),
    # The backends' generation; the Python module run; C compiled once; JavaScript run once.
    "test_python_module.py": (
        "test_seed_examples_that_are_valid", "test_seed_examples_that_are_invalid",
        "test_accepts_bytes_like_objects_and_refuses_str", "test_conformance_vectors",
        "test_incremental_validator_agrees_with_whole_buffer_at_every_split"),
    "test_python_runs.py": ("test_json_suite", "test_json_deep_nesting"),
    "test_python_json_fast.py": ("test_json_placeholders_and_strings", "test_json_deep_nesting"),
    "test_c.py": ("test_render_names_and_determinism", "test_conformance_vectors"),
    "test_c_nibble.py": ("test_utf8_gets_keiser_and_lemires_test", "test_the_sse41_setting_takes_the_sse41_instance"),
    "test_js_inputs.py": ALL,
    "test_rust.py": ("test_a_rust_keyword_is_refused_as_prefix",
                     "test_the_command_line_refuses_a_keyword_prefix_and_writes_the_module"),
    "test_rust_window.py": ("test_the_scalar_module_forbids_unsafe_code",),
    "test_go.py": ("test_prefixes_go_cannot_take_are_refused", "test_prefixes_go_can_take",
                   "test_the_file_is_a_generated_package_with_no_imports"),
    "test_go_window.py": ("test_the_plan_has_the_window_test_where_it_applies",),
    "test_book.py": ("test_the_book_never_takes_its_language_from_the_environment",
                     "test_the_book_speaks_the_chosen_language_but_leaves_the_grammar_as_written"),
    "test_notes.py": ("test_generated_code_carries_the_notes",),
    "test_backend_plugin.py": ("test_unknown_backend_in_the_api",),
    "test_pictures.py": ("test_dot_for_utf8_names_grammar_positions_and_merges_ranges",
                         "test_railroad_command_writes_one_linked_svg_per_rule[utf8"),
    # explain, vectors, crosscheck, diff.
    "test_explain.py": (
        "test_utf8_tree_names_each_character_rule_and_alternative", "test_utf8_text_output",
        "test_utf8_rejection_points_into_the_grammar", "test_end_of_input_and_complete_prefix",
        "test_steps_follow_the_dfa", "test_errors_exit_2_with_a_message"),
    "test_vectors.py": ALL,
    "test_fuzz_kit.py": ("test_edits_that_keep_the_states_keep_a_valid_input_valid",
                         "test_json_edits_that_keep_the_configurations_keep_valid_json_valid",
                         "test_a_recursive_grammar_without_a_pushdown_validator_is_refused_with_a_reason",
                         "test_the_corpus_stops_at_the_work_limit_and_names_it"),
    "test_crosscheck.py": ("test_a_wrong_adapter_is_found_with_its_class_and_shortest_witness",
                           "test_a_misbehaving_program_is_reported_with_the_input_behind_it"),
    "test_diff.py": ALL,
    # Learning a grammar from a black box.
    "test_learn.py": ("test_an_implementation_that_agrees_with_the_grammar_costs_one_round",
                      "test_a_recursive_grammar_is_refused_with_a_reason"),
    "test_mutants.py": ("test_every_edit_kind_is_made_labelled_with_its_line_and_is_the_edit_it_names",),
    # The grammars fuzzing once failed on, through every command.
    "fuzz/test_fuzz_grammars.py": ("test_findings",),
    # Records (lines, CSV, JSON lines, Parquet; the C batch kernel), Arrow arrays, data frames.
    "test_records.py": (
        "test_text_report", "test_excerpt_escapes_and_cuts", "test_missing_file_and_bad_options",
        "test_csv_by_name_and_number", "test_jsonl", "test_parquet", "test_no_compiler_falls_back_to_python",
        "test_lines_crlf_last_line_and_nul"),
    "test_records_readers.py": ("test_jsonl_the_fast_path_reads_what_it_can",
                                "test_csv_the_fast_path_reads_what_it_can"),
    "test_arrow.py": ("test_wrong_type", "test_python_validator_fallback"),
    "test_dataframes.py": ("test_a_polars_expression_eager_and_lazy", "test_a_missing_package_is_named"),
    # Translations.
    "test_i18n.py": (
        "test_every_message_is_translated_with_its_placeholders",
        "test_the_committed_mo_file_holds_exactly_its_po_file",
        "test_the_translator_translates_and_leaves_english_as_written", "test_locale_names_map_to_catalogs",
        "test_an_explicit_locale_wins_and_an_unknown_one_is_refused", "test_errors_speak_the_chosen_language"),
    # The command line: its errors, its help, the committed generated/ folder.
    "test_cli.py": (
        "test_generated_folder_is_up_to_date", "test_compile_options_prefix_lang_start",
        "test_failed_compile_writes_nothing", "test_check_reports_offset_and_context", "test_dfa_json_and_text",
        "test_lint", "test_every_command_has_help_with_an_example", "test_prefix_must_name_a_module_and_c_identifiers",
        "test_limits_must_be_positive", "test_unwritable_out_is_the_users_error",
        "test_a_mistyped_option_or_command_gets_a_suggestion", "test_a_missing_grammar_is_the_only_missing_argument"),
}

# The static checks (ruff, mypy, import-linter): in the full run, not in the quick tier.
STATIC = ("test_static.py",)


def quick_names(path: str) -> tuple[str, ...]:
    """The quick tier's names in the file at ``path`` (relative to tests/), ``ALL`` or ()."""
    return QUICK.get(path, ())


def is_named(names: tuple[str, ...], function: str, name: str) -> bool:
    """Whether the test ``name`` (its function ``function``, its parameters in brackets) is one of
    ``names``."""
    if names == ALL:
        return True
    return any(entry in (function, name) or ("[" in entry and name.startswith(entry)) for entry in names)
