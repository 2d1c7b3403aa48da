/**
 * stateguard: seal `requestState` and bind handles for MCP 2026-07-28 servers, and bind the
 * sessions of servers that still speak 2025-11-25.
 *
 * The library surface. It imports nothing of the scanner.
 */
export {
  createStateSealer,
  STATE_PREFIX,
  type StateSealer,
  type StateSealerOptions,
  type StateClaims,
  type OpenedState,
  type SealOptions,
  type PreparedBinding,
} from './seal/seal.js';
export type { StateBinding, Principal } from './seal/binding.js';
export { isEmptyPrincipal } from './seal/principal-tag.js';
export type { KeyInput, KeysInput } from './seal/key.js';
export {
  createHandleBinder,
  HANDLE_PREFIX,
  type HandleBinder,
  type HandleBinderOptions,
  type HandleClaims,
  type IssuedHandle,
  type MintOptions,
} from './bind/handle.js';
export {
  createHandleStore,
  handleStoreKey,
  type HandleStore,
  type HandleStoreOptions,
  type HandleStoreBackend,
} from './bind/store.js';
export {
  createMemoryHandleBackend,
  type MemoryHandleBackendOptions,
} from './bind/memory-backend.js';
export {
  handleToolError,
  withHandleErrors,
  handleErrorText,
  type HandleToolErrorResult,
  type HandleToolErrorOptions,
} from './bind/tool-error.js';
export {
  createSessionBinding,
  type SessionBinding,
  type SessionBindingOptions,
} from './bind/session.js';
export type { SingleUseLedger } from './ledger/types.js';
export {
  createMemoryLedger,
  type MemoryLedger,
  type MemoryLedgerOptions,
} from './ledger/memory.js';
export {
  ERROR_CODES,
  STATE_REJECTIONS,
  HANDLE_REJECTIONS,
  SESSION_REJECTIONS,
  StateguardError,
  StateRejectedError,
  HandleRejectedError,
  LedgerUnavailableError,
  type ErrorCode,
  type StateRejection,
  type HandleRejection,
  type SessionRejection,
} from './errors.js';
export {
  createTaskGuard,
  TASK_NOT_FOUND,
  TaskNotFoundError,
  type TaskGuard,
  type TaskGuardOptions,
  type TaskRejection,
  type CreatedTask,
} from './bind/task.js';
