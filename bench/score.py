"""The benchmarks' scorers live in the library (ontouse.scoring), which `ontoask --questions` uses too."""

from ontouse.scoring import (NO_DATA, answer_is_correct, answer_set_f1, as_number, is_correct,  # noqa: F401
                             name_in_text, normalize_value, numbers_in, numbers_match, says_no_data, yes_no)
