from django.db import models


class StmScopeKind(models.TextChoices):
    """The short-term tier's scopes (seed 004), each with its default TTL in stm_caps.yaml."""

    RESEARCH_TASK = "research_task"  # 1 h: a background research task's working set
    AGENT_RUN = "agent_run"  # 10 min: an agent restart loses it cleanly
    USER_SESSION = "user_session"  # 15 min: the session idle timeout
    ADMIN_SESSION = "admin_session"  # 30 min: operator debug workflows (workbench seeds)


class StmTrigger(models.TextChoices):
    """What moved a short-term row towards long-term memory (or out of the tier)."""

    EXPLICIT = "explicit"  # POST .../consolidate/ or the CLI
    AGE_TRIGGERED = "age_triggered"  # the hourly scan of rows about to expire
    SIGNAL_TRIGGERED = "signal_triggered"  # a referenced entry became active


class ReconfirmState(models.TextChoices):
    OPEN = "open"  # waiting for the member to re-confirm or correct
    RESOLVED = "resolved"  # confirmed, edited, forgotten or no longer an inference
