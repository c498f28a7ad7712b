"""The benchmarks' scorers live in the library (ontouse.scoring), which `ontoask --questions` uses too."""

from ontouse.scoring import (NO_DATA, answer_set_f1, as_number, is_correct, name_in_text,  # noqa: F401
                             normalize_value, numbers_in, numbers_match, says_no_data, yes_no)
