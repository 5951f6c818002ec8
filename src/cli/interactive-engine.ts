import type { Mode } from "../agent/events";
import { answerApprovalsWith } from "../agent/approval-answers";
import type { Approver } from "../agent/approvals";
import { saveSelectedModel } from "../storage/config";
import type { LogLevel } from "../storage/logger";
import type { ProfileStore } from "../storage/profile";
import type { TrustDecider } from "./project-trust";
import type { McpUserPrompts } from "./mcp-sampling";
import { resolveReadyModel } from "./model-selection";
import type { PreparedSession } from "./session-setup";
import { type EngineSession, startSession } from "./session-start";

export { summarizeInventory } from "./project-trust";

/**
 * The engine half of the interactive mode, loaded after the TUI's first
 * frame: the engine host with the project's standing permissions (which
 * "always" answers extend); the user's reviews answer its approvals, and a
 * switched model is saved as the default.
 */
export async function startInteractiveSession(
    prepared: PreparedSession,
    options: {
        version: string;
        logLevel: LogLevel;
        mode: Mode;
        profiles: ProfileStore;
        /** The chat's reviews. */
        reviews: Approver;
        decideTrust: TrustDecider;
        warn: (message: string) => void;
        mcpPrompts?: McpUserPrompts;
    }
): Promise<EngineSession> {
    const session = await startSession(prepared, {
        version: options.version,
        frontEnd: "interactive",
        logLevel: options.logLevel,
        mode: options.mode,
        contextFigure: true,
        resolveModel: (name) => resolveReadyModel(prepared.catalogue, name, process.env),
        saveModel: (alias) => saveSelectedModel(alias, process.env),
        profiles: options.profiles,
        approvalSettings: (project) => project,
        decideTrust: options.decideTrust,
        warn: options.warn,
        mcpPrompts: options.mcpPrompts,
    });
    answerApprovalsWith(session.host, options.reviews);
    return session;
}
