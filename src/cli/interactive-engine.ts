import type { Approver } from "../agent/approvals";
import type { LogLevel } from "../storage/logger";
import type { TrustDecider } from "./project-trust";
import type { McpUserPrompts } from "./mcp-sampling";
import type { PreparedSession } from "./session-setup";
import { type SessionHandle, startSession } from "./session-start";

export { createTuiEngine } from "./tui-engine";
export { summarizeInventory } from "./project-trust";

/**
 * The engine half of the interactive mode, loaded after the TUI's first
 * frame: the session, its tools and log. Approvals come from the user, with
 * the project's standing permissions (which "always" answers extend).
 */
export async function startInteractiveSession(
    prepared: PreparedSession,
    options: {
        version: string;
        logLevel: LogLevel;
        approver: Approver;
        decideTrust: TrustDecider;
        warn: (message: string) => void;
        mcpPrompts?: McpUserPrompts;
    }
): Promise<SessionHandle> {
    return startSession(prepared, {
        version: options.version,
        frontEnd: "interactive",
        logLevel: options.logLevel,
        approver: options.approver,
        approvalSettings: (project) => project,
        decideTrust: options.decideTrust,
        warn: options.warn,
        mcpPrompts: options.mcpPrompts,
    });
}
