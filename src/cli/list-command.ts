import { join } from "node:path";
import { detectRepoRoot } from "../project/repo-root";
import { createConversationStore, hasEntries } from "../storage/conversations";
import { dataDir } from "../storage/paths";
import { age, oneLine } from "../util/short-text";
import type { CliArgs } from "./args";
import { printError, terminalSafeText, writeStdout } from "../util/terminal-text";

/** `north list` / `north conversations`: saved conversations, newest first; `--path` keeps one project's. */
export function runListCommand(args: CliArgs): number {
    const store = createConversationStore(join(dataDir(), "conversations"));
    let repoRoot: string | undefined;
    if (args.path) {
        const repo = detectRepoRoot(args.path);
        if (!repo.ok) {
            printError(`--path: ${repo.error}`);
            return 2;
        }
        repoRoot = repo.root;
    }
    const conversations = store.list(repoRoot ? { repoRoot } : {}).filter(hasEntries);
    if (conversations.length === 0) {
        writeStdout("No saved conversations yet.\n");
        return 0;
    }
    const now = Date.now();
    // Stripped before the cut, so a long escape sequence cannot use up the preview.
    const lines = conversations.map((c) => {
        const parent = c.forkedFrom ? `  (fork of ${c.forkedFrom})` : "";
        return `${c.id}  ${age(c.updatedAt, now).padStart(8)}  ${c.model.padEnd(28)}  ${c.repoRoot}${parent}\n        ${oneLine(terminalSafeText(c.firstPrompt ?? ""), 90)}`;
    });
    writeStdout(
        `${lines.join("\n")}\n\nContinue one in the chat: north resume ID (any unique prefix of the id)\nor in print mode: north -p --resume ID "PROMPT"\n`
    );
    return 0;
}
