import { join } from "node:path";
import { detectRepoRoot } from "../project/repo-root";
import { createConversationStore } from "../storage/conversations";
import { dataDir } from "../storage/paths";
import type { CliArgs } from "./args";

export function age(iso: string, now: number): string {
    const seconds = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
    if (seconds < 60) return `${seconds}s ago`;
    if (seconds < 3600) return `${Math.round(seconds / 60)}m ago`;
    if (seconds < 86_400) return `${Math.round(seconds / 3600)}h ago`;
    return `${Math.round(seconds / 86_400)}d ago`;
}

export function oneLine(text: string | null, width: number): string {
    const flat = (text ?? "").replace(/\s+/g, " ").trim();
    return flat.length > width ? `${flat.slice(0, width - 1)}…` : flat;
}

/** `north list` / `north conversations`: saved conversations, newest first; `--path` keeps one project's. */
export function runListCommand(args: CliArgs): number {
    const store = createConversationStore(join(dataDir(), "conversations"));
    let repoRoot: string | undefined;
    if (args.path) {
        const repo = detectRepoRoot(args.path);
        if (!repo.ok) {
            process.stderr.write(`north: --path: ${repo.error}\n`);
            return 2;
        }
        repoRoot = repo.root;
    }
    const conversations = store.list(repoRoot ? { repoRoot } : {});
    if (conversations.length === 0) {
        process.stdout.write("No saved conversations yet.\n");
        return 0;
    }
    const now = Date.now();
    const lines = conversations.map((c) => {
        const parent = c.forkedFrom ? `  (fork of ${c.forkedFrom})` : "";
        return `${c.id}  ${age(c.updatedAt, now).padStart(8)}  ${c.model.padEnd(28)}  ${c.repoRoot}${parent}\n        ${oneLine(c.firstPrompt, 90)}`;
    });
    process.stdout.write(
        `${lines.join("\n")}\n\nContinue one in the chat: north resume ID (any unique prefix of the id)\nor in print mode: north -p --resume ID "PROMPT"\n`
    );
    return 0;
}
