/**
 * The user's personal standing approvals: "don't ask again" answers given in
 * the chat, kept in North's data folder (`~/.north/approvals.json`), never in
 * the repository, keyed by the project's real path like trusted projects are.
 * They are the user's own, so they hold without the repository's trust.
 *
 * `{"version": 1, "projects": {"/real/path": {"allowedCommands": ["npm test"], "allow": ["Bash(npm run:*)"]}}}`
 */
import { mkdirSync, realpathSync } from "node:fs";
import { join } from "node:path";
import {
    type JsonObject,
    addToList,
    editJsonObject,
    isJsonObject,
    readJsonObject,
    removeFromList,
} from "./json-object-file";

export const PERSONAL_APPROVALS_FILE = "approvals.json";

/** One standing answer: an exact command, or a permission rule for `permissions.allow`. */
export type StandingAnswer = { allowCommand: string } | { allowRule: string };

export interface PersonalApprovals {
    allowedCommands: string[];
    /** `Bash(npm run:*)`, as written. */
    allowRules: string[];
}

export interface PersonalApprovalStore {
    /** The file, for messages and `/permissions`. */
    readonly path: string;
    /** This project's answers; throws when the file is broken (it is left as is). */
    read(): PersonalApprovals;
    /** Keeps `answer` for this project; throws when it cannot (a broken file is left as is). */
    add(answer: StandingAnswer): void;
    /** Drops `answer`, keeping everything else; false when it was not there. */
    remove(answer: StandingAnswer): boolean;
}

function projectKey(repoRoot: string): string {
    try {
        return realpathSync(repoRoot);
    } catch {
        return repoRoot;
    }
}

function strings(value: unknown): string[] {
    return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

/** The project's record in the file's object, created when `create`. */
function projectRecord(file: JsonObject, key: string, create: boolean): JsonObject | undefined {
    if (!isJsonObject(file.projects)) {
        if (!create) return undefined;
        file.projects = {};
    }
    const projects = file.projects as JsonObject;
    if (!isJsonObject(projects[key])) {
        if (!create) return undefined;
        projects[key] = {};
    }
    return projects[key] as JsonObject;
}

function listKey(answer: StandingAnswer): { key: string; item: string } {
    return "allowCommand" in answer
        ? { key: "allowedCommands", item: answer.allowCommand }
        : { key: "allow", item: answer.allowRule };
}

export function createPersonalApprovalStore(
    dataDirectory: string,
    repoRoot: string
): PersonalApprovalStore {
    const path = join(dataDirectory, PERSONAL_APPROVALS_FILE);
    const key = projectKey(repoRoot);
    return {
        path,
        read() {
            const record = projectRecord(readJsonObject(path), key, false);
            return {
                allowedCommands: strings(record?.allowedCommands),
                allowRules: strings(record?.allow),
            };
        },
        add(answer) {
            mkdirSync(dataDirectory, { recursive: true, mode: 0o700 });
            const { key: list, item } = listKey(answer);
            editJsonObject(path, (file) => {
                file.version ??= 1;
                return addToList(projectRecord(file, key, true)!, list, item);
            });
        },
        remove(answer) {
            const { key: list, item } = listKey(answer);
            return editJsonObject(path, (file) => {
                const record = projectRecord(file, key, false);
                return record !== undefined && removeFromList(record, list, item);
            });
        },
    };
}
