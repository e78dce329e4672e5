from typing import Literal

ListOpenQuestionsContext = Literal[
    "crisis",
    "financial",
    "general",
    "health",
    "identity",
    "legal",
    "relationship",
    "safety",
    "spiritual",
]

LIST_OPEN_QUESTIONS_CONTEXT_VALUES: set[ListOpenQuestionsContext] = {
    "crisis",
    "financial",
    "general",
    "health",
    "identity",
    "legal",
    "relationship",
    "safety",
    "spiritual",
}


def check_list_open_questions_context(value: str) -> ListOpenQuestionsContext:
    if value in LIST_OPEN_QUESTIONS_CONTEXT_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {LIST_OPEN_QUESTIONS_CONTEXT_VALUES!r}"
    )
