/**
 * The older approval files, `.north/autoaccept.json` (`editsAutoAccept`,
 * `shellAutoApprove`) and `.north/allowlist.json` (`allowedCommands`), are no
 * settings any more: at the first start in a trusted project, what they hold
 * moves once into the user's personal store (`~/.north/approvals.json`,
 * standing-approvals.ts), never into a file the repository shares, and the
 * session's warning line says what moved. After that North does not read
 * them. They are left in place (they may be committed, and an older North or
 * a teammate's North may still use them): the personal record marks each as
 * moved, so a later start neither moves it again nor duplicates anything.
 *
 * In an untrusted project nothing moves and nothing of them counts. They stay
 * trust-gated (trust.ts), so what moves is what the user trusted. A file that
 * cannot be read safely (a link out of the project) or is broken moves
 * nothing and is not marked: the warning says why, and a fixed file moves at
 * a later start.
 */
import { lstatSync } from "node:fs";
import { join } from "node:path";
import { type SettingsLayer, parseLayer } from "./settings/load";
import type { SettingsKey } from "./settings/schema";
import type { PersonalApprovalStore, StandingAnswer } from "./standing-approvals";
import { type ProjectConfigSnapshot, type TrustGatedFile, readProjectConfig } from "./trust";

/** The older files with the keys each may hold. */
export const LEGACY_APPROVAL_FILES: ReadonlyArray<{
    file: TrustGatedFile;
    keys: readonly SettingsKey[];
}> = [
    { file: ".north/autoaccept.json", keys: ["editsAutoAccept", "shellAutoApprove"] },
    { file: ".north/allowlist.json", keys: ["allowedCommands"] },
];

/** The older files of a snapshot as layers, for the trust question to list what trusting moves. */
export function legacyApprovalLayers(
    repoRoot: string,
    files: ProjectConfigSnapshot["files"]
): SettingsLayer[] {
    return LEGACY_APPROVAL_FILES.flatMap(({ file, keys }) => {
        const text = files[file];
        const layer =
            text === undefined
                ? undefined
                : parseLayer(text, join(repoRoot, file), "project", keys).layer;
        return layer ? [layer] : [];
    });
}

/** What a legacy layer grants, as answers for the personal store and as words for the notice. */
function answersOf(layer: SettingsLayer): { answers: StandingAnswer[]; words: string[] } {
    const answers: StandingAnswer[] = [];
    const words: string[] = [];
    const { settings } = layer;
    if (settings.shellAutoApprove === true) {
        answers.push({ on: "shellAutoApprove" });
        words.push("every command runs without asking");
    }
    if (settings.editsAutoAccept === true) {
        answers.push({ on: "editsAutoAccept" });
        words.push("every edit lands without review");
    }
    for (const command of settings.allowedCommands ?? []) {
        answers.push({ allowCommand: command });
        words.push(`\`${command}\` runs without asking`);
    }
    return { answers, words };
}

function exists(path: string): boolean {
    try {
        lstatSync(path);
        return true;
    } catch {
        return false;
    }
}

export interface LegacyMigration {
    repoRoot: string;
    /** Live trust: nothing moves unless the project, as it is now, is trusted. */
    isTrustedNow(): boolean;
    personal: PersonalApprovalStore;
    /** The session's warning line: what moved, or why a file did not. */
    warn(message: string): void;
}

/** Moves the older files not moved yet (see the file's comment). Never throws. */
export function migrateLegacyApprovals({
    repoRoot,
    isTrustedNow,
    personal,
    warn,
}: LegacyMigration): void {
    // One lstat per file on every start; the rest only while one is there.
    const present = LEGACY_APPROVAL_FILES.filter(({ file }) => exists(join(repoRoot, file)));
    if (present.length === 0) return;
    let moved: string[];
    try {
        moved = personal.read().migrated;
    } catch (error) {
        warn(
            `${present[0]!.file} was not moved to your personal approvals: ${(error as Error).message}`
        );
        return;
    }
    const pending = present.filter(({ file }) => !moved.includes(file));
    if (pending.length === 0) return;
    // Read as trust fingerprints it (never through a link out of the project), then judged trusted.
    const snapshot = readProjectConfig(repoRoot);
    if (!isTrustedNow()) return;
    for (const { file, keys } of pending) {
        const notMoved = (why: string): void =>
            warn(
                `${file} was not moved to your personal approvals (${why}); North does not read it: fix it and it moves at the next start, or delete it`
            );
        const unreadable = snapshot.unreadable[file];
        if (unreadable !== undefined) {
            notMoved(unreadable);
            continue;
        }
        const text = snapshot.files[file];
        if (text === undefined) continue;
        const parsed = parseLayer(text, join(repoRoot, file), "project", keys);
        if (!parsed.layer || parsed.errors.length > 0) {
            notMoved([...parsed.errors, ...parsed.warnings].join("; "));
            continue;
        }
        const { answers, words } = answersOf(parsed.layer);
        try {
            personal.migrate(file, answers);
        } catch (error) {
            notMoved((error as Error).message);
            continue;
        }
        const what = words.length > 0 ? words.join(", ") : "nothing (it granted nothing)";
        const ignored =
            parsed.warnings.length > 0 ? ` (ignored: ${parsed.warnings.join("; ")})` : "";
        warn(
            `moved the standing approvals of ${file} into your personal approvals (${personal.path}) for this project: ${what}${ignored}. North no longer reads ${file}; it was left as it is (remove it when nobody's older North needs it), and /permissions lists and removes what moved`
        );
    }
}
