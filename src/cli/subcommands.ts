/**
 * The rarely used commands, loaded through one module. Each `import()` is a
 * split point for the bundler, and modules shared by a different set of split
 * points land in chunks of their own: five small entries here cut the print
 * path's shared code into many more files than one entry does.
 */
export { runCompletionCommand } from "./completion-command";
export { runDoctorCommand } from "./doctor-command";
export { runListCommand } from "./list-command";
export { runMcpCommand } from "./mcp-command";
export { runPluginCommand } from "./plugin-command";
// After the chat's trust question: the offer to install the plugins a project expects.
export { chatPluginAsker, offerDeclaredPlugins } from "./project-plugin-offer";
export { runModelsCommand } from "./models-command";
export { runRewindCommand } from "./rewind-command";
export { runReviewCommand } from "./review-command";
export { runExportCommand } from "./export-command";
export { runAttemptsCommand, runAttemptsPrint } from "./attempts-command";
// `--worktree`: loaded here, not through a split point of its own (see above).
export {
    askOnTerminal,
    offerWorktreeExit,
    openSessionWorktree,
    printModeWorktreeText,
    worktreeResultField,
} from "./worktree-session";
export { removeWorktree } from "../project/worktrees";
export { WorktreeError, createWorktree, worktreeDiff } from "../project/worktrees";
