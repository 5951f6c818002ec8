/**
 * What only a resumed chat needs before its first frame: the conversation
 * store and the replay of a stored conversation. One `import()` split point,
 * so a new chat loads none of it until the engine does.
 */
export { createConversationStore } from "../storage/conversations";
export { historyOf, openForResume, restoredStateOf } from "../agent/conversation-log";
