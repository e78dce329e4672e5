"""Contains all the data models used in inputs/outputs"""

from .ack import Ack
from .action_enum import ActionEnum
from .active_consent_list import ActiveConsentList
from .active_consent_output import ActiveConsentOutput
from .anchor_ref_input import AnchorRefInput
from .answer_enum import AnswerEnum
from .audit_envelope_output import AuditEnvelopeOutput
from .audit_envelope_output_suppression_counts import AuditEnvelopeOutputSuppressionCounts
from .capture_method_enum import CaptureMethodEnum
from .change_event import ChangeEvent
from .change_feed import ChangeFeed
from .change_feed_ack_request import ChangeFeedAckRequest
from .code_delivery import CodeDelivery
from .consent_event_kind_enum import ConsentEventKindEnum
from .consent_event_output import ConsentEventOutput
from .consent_ledger_verification import ConsentLedgerVerification
from .consent_type_enum import ConsentTypeEnum
from .consolidate_output import ConsolidateOutput
from .consolidate_short_term_context import ConsolidateShortTermContext
from .context_bundle_output import ContextBundleOutput
from .context_bundle_output_episodic_item import ContextBundleOutputEpisodicItem
from .context_bundle_output_ltm import ContextBundleOutputLtm
from .context_bundle_output_stm_item import ContextBundleOutputStmItem
from .context_bundle_output_stm_withheld import ContextBundleOutputStmWithheld
from .context_bundle_request import ContextBundleRequest
from .context_enum import ContextEnum
from .continuation_anchor_ref_output import ContinuationAnchorRefOutput
from .continuation_resume_output import ContinuationResumeOutput
from .continuation_surface_context_output import ContinuationSurfaceContextOutput
from .continuation_token_list_output import ContinuationTokenListOutput
from .continuation_token_list_output_withheld import ContinuationTokenListOutputWithheld
from .continuation_token_output import ContinuationTokenOutput
from .continuation_token_request import ContinuationTokenRequest
from .continuation_token_write_output import ContinuationTokenWriteOutput
from .continuation_token_write_output_outcome_enum import ContinuationTokenWriteOutputOutcomeEnum
from .continuity_notice_output import ContinuityNoticeOutput
from .continuity_notice_output_kind_enum import ContinuityNoticeOutputKindEnum
from .continuity_superseded_place_output import ContinuitySupersededPlaceOutput
from .continuity_surface_enum import ContinuitySurfaceEnum
from .continuity_winning_write_output import ContinuityWinningWriteOutput
from .conversation import Conversation
from .conversation_forgotten import ConversationForgotten
from .conversation_turn_output import ConversationTurnOutput
from .crisis_scope_input import CrisisScopeInput
from .crisis_scope_input_kind_enum import CrisisScopeInputKindEnum
from .data_rights_appeal_input_request import DataRightsAppealInputRequest
from .data_rights_kind_enum import DataRightsKindEnum
from .data_rights_status_enum import DataRightsStatusEnum
from .data_rights_submit_input_request import DataRightsSubmitInputRequest
from .data_rights_submit_input_request_payload import DataRightsSubmitInputRequestPayload
from .data_rights_trail_event_enum import DataRightsTrailEventEnum
from .data_rights_verification_method_enum import DataRightsVerificationMethodEnum
from .data_rights_verify_input_request import DataRightsVerifyInputRequest
from .delivery_enum import DeliveryEnum
from .entity_detail_output import EntityDetailOutput
from .entity_event_output import EntityEventOutput
from .entity_kind_enum import EntityKindEnum
from .entity_output import EntityOutput
from .entity_retire_output import EntityRetireOutput
from .entity_retire_output_outcome_enum import EntityRetireOutputOutcomeEnum
from .entity_state_enum import EntityStateEnum
from .extension import Extension
from .input_kind_enum import InputKindEnum
from .input_request import InputRequest
from .inspection_notice_output import InspectionNoticeOutput
from .inspection_notice_output_state_enum import InspectionNoticeOutputStateEnum
from .legal_basis_enum import LegalBasisEnum
from .lifecycle_enum import LifecycleEnum
from .list_continuations_surface import ListContinuationsSurface
from .list_open_questions_context import ListOpenQuestionsContext
from .list_short_term_context import ListShortTermContext
from .list_short_term_scope_kind import ListShortTermScopeKind
from .me_continuation_tokens_list_surface import MeContinuationTokensListSurface
from .member_scope_policies import MemberScopePolicies
from .memory_audit_entry import MemoryAuditEntry
from .memory_category_enum import MemoryCategoryEnum
from .memory_clear_request import MemoryClearRequest
from .memory_clear_state import MemoryClearState
from .memory_clear_state_enum import MemoryClearStateEnum
from .memory_consent_entry import MemoryConsentEntry
from .memory_create_input_request import MemoryCreateInputRequest
from .memory_edit_input_request import MemoryEditInputRequest
from .memory_edit_preview import MemoryEditPreview
from .memory_entry import MemoryEntry
from .memory_entry_detail import MemoryEntryDetail
from .memory_forget_category_input_request import MemoryForgetCategoryInputRequest
from .memory_forget_result import MemoryForgetResult
from .memory_forget_selected_input_request import MemoryForgetSelectedInputRequest
from .memory_forget_selected_result import MemoryForgetSelectedResult
from .memory_forget_selected_result_by_category import MemoryForgetSelectedResultByCategory
from .memory_kept_existing import MemoryKeptExisting
from .memory_kept_existing_outcome_enum import MemoryKeptExistingOutcomeEnum
from .memory_multi_actor import MemoryMultiActor
from .memory_multi_actor_write_request import MemoryMultiActorWriteRequest
from .memory_notice import MemoryNotice
from .memory_notice_answer_input_request import MemoryNoticeAnswerInputRequest
from .memory_notice_kind_enum import MemoryNoticeKindEnum
from .memory_notice_state_enum import MemoryNoticeStateEnum
from .memory_notice_stored_in import MemoryNoticeStoredIn
from .memory_pause_input_request import MemoryPauseInputRequest
from .memory_provenance_link import MemoryProvenanceLink
from .memory_recent_recall import MemoryRecentRecall
from .memory_revision import MemoryRevision
from .memory_scope import MemoryScope
from .memory_scope_change_input_request import MemoryScopeChangeInputRequest
from .memory_scope_kind_enum import MemoryScopeKindEnum
from .memory_scope_request import MemoryScopeRequest
from .memory_settings import MemorySettings
from .memory_settings_auto_forget_months import MemorySettingsAutoForgetMonths
from .memory_settings_input_request import MemorySettingsInputRequest
from .memory_settings_input_request_auto_forget_months import (
    MemorySettingsInputRequestAutoForgetMonths,
)
from .memory_suppression import MemorySuppression
from .memory_suppression_input import MemorySuppressionInput
from .memory_write_request import MemoryWriteRequest
from .mode_enum import ModeEnum
from .multi_actor_write_input import MultiActorWriteInput
from .my_scope_policies import MyScopePolicies
from .notebook import Notebook
from .notebook_closure import NotebookClosure
from .notebook_deleted import NotebookDeleted
from .notebook_scope_input import NotebookScopeInput
from .notebook_scope_input_kind_enum import NotebookScopeInputKindEnum
from .notified_surface import NotifiedSurface
from .off_the_record_input_request import OffTheRecordInputRequest
from .off_the_record_state import OffTheRecordState
from .open_questions_output import OpenQuestionsOutput
from .open_questions_output_withheld import OpenQuestionsOutputWithheld
from .operator_copilot_scope_input import OperatorCopilotScopeInput
from .operator_copilot_scope_input_kind_enum import OperatorCopilotScopeInputKindEnum
from .operator_role_enum import OperatorRoleEnum
from .opt_out_category_enum import OptOutCategoryEnum
from .opt_out_event_kind_enum import OptOutEventKindEnum
from .opt_out_event_output import OptOutEventOutput
from .opt_out_input_request import OptOutInputRequest
from .opt_out_ledger import OptOutLedger
from .opt_out_state_output import OptOutStateOutput
from .origin_enum import OriginEnum
from .paginated_consent_event_output_list import PaginatedConsentEventOutputList
from .paginated_conversation_list import PaginatedConversationList
from .paginated_inspection_notice_output_list import PaginatedInspectionNoticeOutputList
from .paginated_memory_entry_list import PaginatedMemoryEntryList
from .paginated_memory_notice_list import PaginatedMemoryNoticeList
from .paginated_memory_notice_list_inspection_notices_item import (
    PaginatedMemoryNoticeListInspectionNoticesItem,
)
from .paginated_memory_revision_list import PaginatedMemoryRevisionList
from .paginated_notebook_list import PaginatedNotebookList
from .paginated_recall_record_output_list import PaginatedRecallRecordOutputList
from .paginated_receipt_list import PaginatedReceiptList
from .paginated_short_term_output_list import PaginatedShortTermOutputList
from .paginated_short_term_output_list_withheld import PaginatedShortTermOutputListWithheld
from .patched_memory_edit_input_request import PatchedMemoryEditInputRequest
from .path_enum import PathEnum
from .paused_consumers_enum import PausedConsumersEnum
from .pose_scope_input import PoseScopeInput
from .pose_scope_input_kind_enum import PoseScopeInputKindEnum
from .posture_enum import PostureEnum
from .profile_scope_input import ProfileScopeInput
from .profile_scope_input_kind_enum import ProfileScopeInputKindEnum
from .provenance_kind_enum import ProvenanceKindEnum
from .provenance_link_input import ProvenanceLinkInput
from .provenance_output import ProvenanceOutput
from .reason_enum import ReasonEnum
from .recall_output import RecallOutput
from .recall_record_output import RecallRecordOutput
from .recall_request import RecallRequest
from .recalled_entity_output import RecalledEntityOutput
from .recalled_entry_output import RecalledEntryOutput
from .recalled_entry_output_multi_actor_type_0 import RecalledEntryOutputMultiActorType0
from .recalled_entry_output_scope import RecalledEntryOutputScope
from .recalled_relationship_output import RecalledRelationshipOutput
from .receipt import Receipt
from .refresh_short_term_context import RefreshShortTermContext
from .relationship_output import RelationshipOutput
from .scene_scope_input import SceneScopeInput
from .scene_scope_input_kind_enum import SceneScopeInputKindEnum
from .scope_enum import ScopeEnum
from .scope_policy_output import ScopePolicyOutput
from .sensitive_categories_enum import SensitiveCategoriesEnum
from .session_scope_input import SessionScopeInput
from .session_scope_input_kind_enum import SessionScopeInputKindEnum
from .short_term_consolidate_request import ShortTermConsolidateRequest
from .short_term_consolidate_request_scope_type_0 import ShortTermConsolidateRequestScopeType0
from .short_term_output import ShortTermOutput
from .short_term_refresh_request import ShortTermRefreshRequest
from .short_term_write_request import ShortTermWriteRequest
from .short_term_write_scope_kind_enum import ShortTermWriteScopeKindEnum
from .source_enum import SourceEnum
from .speaker_enum import SpeakerEnum
from .status_enum import StatusEnum
from .step_up_input_request import StepUpInputRequest
from .step_up_token import StepUpToken
from .stm_scope_kind_enum import StmScopeKindEnum
from .surface_context_input import SurfaceContextInput
from .tenant_scope_input import TenantScopeInput
from .tenant_scope_input_kind_enum import TenantScopeInputKindEnum
from .terms_version_enum import TermsVersionEnum
from .trail_row import TrailRow
from .turn_append_request import TurnAppendRequest
from .type_enum import TypeEnum
from .v1_me_consents_events_list_consent_type import V1MeConsentsEventsListConsentType
from .v1_me_consents_events_list_kind import V1MeConsentsEventsListKind
from .v1_me_entities_list_kind import V1MeEntitiesListKind
from .v1_me_entities_list_state import V1MeEntitiesListState
from .v1_me_memories_list_category import V1MeMemoriesListCategory
from .v1_me_memories_list_lifecycle import V1MeMemoriesListLifecycle
from .v1_me_memories_list_origin import V1MeMemoriesListOrigin
from .v1_me_memories_list_scope_kind import V1MeMemoriesListScopeKind

__all__ = (
    "Ack",
    "ActionEnum",
    "ActiveConsentList",
    "ActiveConsentOutput",
    "AnchorRefInput",
    "AnswerEnum",
    "AuditEnvelopeOutput",
    "AuditEnvelopeOutputSuppressionCounts",
    "CaptureMethodEnum",
    "ChangeEvent",
    "ChangeFeed",
    "ChangeFeedAckRequest",
    "CodeDelivery",
    "ConsentEventKindEnum",
    "ConsentEventOutput",
    "ConsentLedgerVerification",
    "ConsentTypeEnum",
    "ConsolidateOutput",
    "ConsolidateShortTermContext",
    "ContextBundleOutput",
    "ContextBundleOutputEpisodicItem",
    "ContextBundleOutputLtm",
    "ContextBundleOutputStmItem",
    "ContextBundleOutputStmWithheld",
    "ContextBundleRequest",
    "ContextEnum",
    "ContinuationAnchorRefOutput",
    "ContinuationResumeOutput",
    "ContinuationSurfaceContextOutput",
    "ContinuationTokenListOutput",
    "ContinuationTokenListOutputWithheld",
    "ContinuationTokenOutput",
    "ContinuationTokenRequest",
    "ContinuationTokenWriteOutput",
    "ContinuationTokenWriteOutputOutcomeEnum",
    "ContinuityNoticeOutput",
    "ContinuityNoticeOutputKindEnum",
    "ContinuitySupersededPlaceOutput",
    "ContinuitySurfaceEnum",
    "ContinuityWinningWriteOutput",
    "Conversation",
    "ConversationForgotten",
    "ConversationTurnOutput",
    "CrisisScopeInput",
    "CrisisScopeInputKindEnum",
    "DataRightsAppealInputRequest",
    "DataRightsKindEnum",
    "DataRightsStatusEnum",
    "DataRightsSubmitInputRequest",
    "DataRightsSubmitInputRequestPayload",
    "DataRightsTrailEventEnum",
    "DataRightsVerificationMethodEnum",
    "DataRightsVerifyInputRequest",
    "DeliveryEnum",
    "EntityDetailOutput",
    "EntityEventOutput",
    "EntityKindEnum",
    "EntityOutput",
    "EntityRetireOutput",
    "EntityRetireOutputOutcomeEnum",
    "EntityStateEnum",
    "Extension",
    "InputKindEnum",
    "InputRequest",
    "InspectionNoticeOutput",
    "InspectionNoticeOutputStateEnum",
    "LegalBasisEnum",
    "LifecycleEnum",
    "ListContinuationsSurface",
    "ListOpenQuestionsContext",
    "ListShortTermContext",
    "ListShortTermScopeKind",
    "MeContinuationTokensListSurface",
    "MemberScopePolicies",
    "MemoryAuditEntry",
    "MemoryCategoryEnum",
    "MemoryClearRequest",
    "MemoryClearState",
    "MemoryClearStateEnum",
    "MemoryConsentEntry",
    "MemoryCreateInputRequest",
    "MemoryEditInputRequest",
    "MemoryEditPreview",
    "MemoryEntry",
    "MemoryEntryDetail",
    "MemoryForgetCategoryInputRequest",
    "MemoryForgetResult",
    "MemoryForgetSelectedInputRequest",
    "MemoryForgetSelectedResult",
    "MemoryForgetSelectedResultByCategory",
    "MemoryKeptExisting",
    "MemoryKeptExistingOutcomeEnum",
    "MemoryMultiActor",
    "MemoryMultiActorWriteRequest",
    "MemoryNotice",
    "MemoryNoticeAnswerInputRequest",
    "MemoryNoticeKindEnum",
    "MemoryNoticeStateEnum",
    "MemoryNoticeStoredIn",
    "MemoryPauseInputRequest",
    "MemoryProvenanceLink",
    "MemoryRecentRecall",
    "MemoryRevision",
    "MemoryScope",
    "MemoryScopeChangeInputRequest",
    "MemoryScopeKindEnum",
    "MemoryScopeRequest",
    "MemorySettings",
    "MemorySettingsAutoForgetMonths",
    "MemorySettingsInputRequest",
    "MemorySettingsInputRequestAutoForgetMonths",
    "MemorySuppression",
    "MemorySuppressionInput",
    "MemoryWriteRequest",
    "ModeEnum",
    "MultiActorWriteInput",
    "MyScopePolicies",
    "Notebook",
    "NotebookClosure",
    "NotebookDeleted",
    "NotebookScopeInput",
    "NotebookScopeInputKindEnum",
    "NotifiedSurface",
    "OffTheRecordInputRequest",
    "OffTheRecordState",
    "OpenQuestionsOutput",
    "OpenQuestionsOutputWithheld",
    "OperatorCopilotScopeInput",
    "OperatorCopilotScopeInputKindEnum",
    "OperatorRoleEnum",
    "OptOutCategoryEnum",
    "OptOutEventKindEnum",
    "OptOutEventOutput",
    "OptOutInputRequest",
    "OptOutLedger",
    "OptOutStateOutput",
    "OriginEnum",
    "PaginatedConsentEventOutputList",
    "PaginatedConversationList",
    "PaginatedInspectionNoticeOutputList",
    "PaginatedMemoryEntryList",
    "PaginatedMemoryNoticeList",
    "PaginatedMemoryNoticeListInspectionNoticesItem",
    "PaginatedMemoryRevisionList",
    "PaginatedNotebookList",
    "PaginatedRecallRecordOutputList",
    "PaginatedReceiptList",
    "PaginatedShortTermOutputList",
    "PaginatedShortTermOutputListWithheld",
    "PatchedMemoryEditInputRequest",
    "PathEnum",
    "PausedConsumersEnum",
    "PoseScopeInput",
    "PoseScopeInputKindEnum",
    "PostureEnum",
    "ProfileScopeInput",
    "ProfileScopeInputKindEnum",
    "ProvenanceKindEnum",
    "ProvenanceLinkInput",
    "ProvenanceOutput",
    "ReasonEnum",
    "RecallOutput",
    "RecallRecordOutput",
    "RecallRequest",
    "RecalledEntityOutput",
    "RecalledEntryOutput",
    "RecalledEntryOutputMultiActorType0",
    "RecalledEntryOutputScope",
    "RecalledRelationshipOutput",
    "Receipt",
    "RefreshShortTermContext",
    "RelationshipOutput",
    "SceneScopeInput",
    "SceneScopeInputKindEnum",
    "ScopeEnum",
    "ScopePolicyOutput",
    "SensitiveCategoriesEnum",
    "SessionScopeInput",
    "SessionScopeInputKindEnum",
    "ShortTermConsolidateRequest",
    "ShortTermConsolidateRequestScopeType0",
    "ShortTermOutput",
    "ShortTermRefreshRequest",
    "ShortTermWriteRequest",
    "ShortTermWriteScopeKindEnum",
    "SourceEnum",
    "SpeakerEnum",
    "StatusEnum",
    "StepUpInputRequest",
    "StepUpToken",
    "StmScopeKindEnum",
    "SurfaceContextInput",
    "TenantScopeInput",
    "TenantScopeInputKindEnum",
    "TermsVersionEnum",
    "TrailRow",
    "TurnAppendRequest",
    "TypeEnum",
    "V1MeConsentsEventsListConsentType",
    "V1MeConsentsEventsListKind",
    "V1MeEntitiesListKind",
    "V1MeEntitiesListState",
    "V1MeMemoriesListCategory",
    "V1MeMemoriesListLifecycle",
    "V1MeMemoriesListOrigin",
    "V1MeMemoriesListScopeKind",
)
