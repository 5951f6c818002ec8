/**
 * The user's personal standing approvals: "don't ask again" answers given in
 * the chat, kept in North's data folder (`~/.north/approvals.json`), never in
 * the repository, keyed by the project's real path like trusted projects are.
 * They are the user's own, so they hold without the repository's trust.
 *
 * `{"version": 1, "projects": {"/real/path": {"allowedCommands": ["npm test"], "allow": ["Bash(npm run:*)"]}}}`
 *
 * A project's record may also hold the switches moved here from the older
 * `.north/autoaccept.json` (`"shellAutoApprove": true`, `"editsAutoAccept":
 * true`) and `"migrated"`: the older files already moved (legacy-approvals.ts).
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

/** A switch of the older `.north/autoaccept.json`, kept personal once moved. */
export type ApprovalSwitch = "shellAutoApprove" | "editsAutoAccept";

/** One standing answer: an exact command, a permission rule for `permissions.allow`, or a switch. */
export type StandingAnswer =
    { allowCommand: string } | { allowRule: string } | { on: ApprovalSwitch };

export interface PersonalApprovals {
    allowedCommands: string[];
    /** `Bash(npm run:*)`, as written. */
    allowRules: string[];
    /** Switches on for this project. */
    switches: ApprovalSwitch[];
    /** The older project files already moved here (`.north/allowlist.json`). */
    migrated: string[];
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
    /**
     * Keeps every answer moved from the older project file `file` and marks
     * it moved, in one write; throws when it cannot (nothing is kept then).
     */
    migrate(file: string, answers: readonly StandingAnswer[]): void;
}

const SWITCHES: readonly ApprovalSwitch[] = ["shellAutoApprove", "editsAutoAccept"];

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

/** Adds `answer` to a project's record; false when it was there. */
function addAnswer(record: JsonObject, answer: StandingAnswer): boolean {
    if ("on" in answer) {
        if (record[answer.on] === true) return false;
        record[answer.on] = true;
        return true;
    }
    return "allowCommand" in answer
        ? addToList(record, "allowedCommands", answer.allowCommand)
        : addToList(record, "allow", answer.allowRule);
}

function removeAnswer(record: JsonObject, answer: StandingAnswer): boolean {
    if ("on" in answer) {
        if (!(answer.on in record)) return false;
        delete record[answer.on];
        return true;
    }
    return "allowCommand" in answer
        ? removeFromList(record, "allowedCommands", answer.allowCommand)
        : removeFromList(record, "allow", answer.allowRule);
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
                switches: SWITCHES.filter((s) => record?.[s] === true),
                migrated: strings(record?.migrated),
            };
        },
        add(answer) {
            mkdirSync(dataDirectory, { recursive: true, mode: 0o700 });
            editJsonObject(path, (file) => {
                file.version ??= 1;
                return addAnswer(projectRecord(file, key, true)!, answer);
            });
        },
        remove(answer) {
            return editJsonObject(path, (file) => {
                const record = projectRecord(file, key, false);
                return record !== undefined && removeAnswer(record, answer);
            });
        },
        migrate(file, answers) {
            mkdirSync(dataDirectory, { recursive: true, mode: 0o700 });
            editJsonObject(path, (object) => {
                object.version ??= 1;
                const record = projectRecord(object, key, true)!;
                for (const answer of answers) addAnswer(record, answer);
                return addToList(record, "migrated", file);
            });
        },
    };
}
