import { oneLine } from "../../util/short-text";
import type { RewindPoint, RewindScope } from "../../agent/protocol";
import {
    type CommandDefinition,
    type CommandPlan,
    type PickerOption,
    failure,
    result,
    shown,
    submit,
} from "../types";

const CANCELLED = (): CommandPlan => result("Rewind cancelled; nothing was changed.");

/** A prompt on one line, never cut: the picker and the confirmation show it whole. */
const flat = (text: string) => oneLine(text, Infinity);

const plural = (n: number, one: string, many: string) => (n === 1 ? one : many);

/** The files restoring the code to before `point` would change, in a few words. */
function codeHint(point: RewindPoint): string {
    if (!point.code.ok) return "its code cannot be restored (checkpoints gone)";
    if (point.files.length === 0) return "no file changed since";
    return `restores ${point.files.join(", ")}`;
}

/** Under the title of the second step: the files, and what rewind cannot undo. */
function scopeNote(point: RewindPoint, notTracked: string): string {
    const code = point.code.ok
        ? point.files.length === 0
            ? "North changed no file since this prompt."
            : `Files: ${point.files.join(", ")}`
        : `Code: ${point.code.error}; the conversation can still be rewound.`;
    return `${code}\n${notTracked}`;
}

function scopeOptions(point: RewindPoint): PickerOption[] {
    const files = codeHint(point);
    const options: PickerOption[] = [
        {
            id: "both",
            label: "Restore code and conversation",
            hint: `${files}; the prompt goes back to the composer`,
        },
        {
            id: "conversation",
            label: "Restore the conversation only",
            hint: "files stay as they are; the prompt goes back to the composer",
        },
        { id: "code", label: "Restore the code only", hint: `${files}; the conversation stays` },
        { id: "cancel", label: "Cancel", hint: "nothing changes" },
    ];
    return point.code.ok
        ? options
        : options.filter((o) => o.id === "conversation" || o.id === "cancel");
}

/** Files changed since North changed them: overwrite them, keep them, or cancel. */
function confirmOverwrite(
    changed: string[],
    rewind: (overwrite: boolean) => CommandPlan
): CommandPlan {
    const n = changed.length;
    const them = plural(n, "it", "them");
    return {
        kind: "choose",
        title: `Overwrite ${n} ${plural(n, "file", "files")} changed since North changed ${them}?`,
        options: [
            { id: "overwrite", label: `Overwrite ${them}`, hint: changed.join(", ") },
            {
                id: "keep",
                label: `Keep ${them} as ${plural(n, "it is", "they are")}`,
                hint: "restore the other files only",
            },
        ],
        note: `Changed by something other than North: ${changed.join(", ")}`,
        onChoice: (choice) => (choice === null ? CANCELLED() : rewind(choice === "overwrite")),
    };
}

/** The second step: what to take back to before `point`. */
function chooseScope(point: RewindPoint, notTracked: string): CommandPlan {
    return {
        kind: "choose",
        title: `Before prompt ${point.number}: ${flat(point.text)}`,
        options: scopeOptions(point),
        note: scopeNote(point, notTracked),
        onChoice(choice) {
            if (choice === null || choice === "cancel") return CANCELLED();
            const scope = choice as RewindScope;
            const rewind = (overwriteChanged: boolean) =>
                submit({ type: "rewind", point, scope, overwriteChanged }, shown);
            if (scope === "conversation" || point.changedSince.length === 0) return rewind(false);
            return confirmOverwrite(point.changedSince, rewind);
        },
    };
}

/** The point `wanted` names, or a picker of them, newest first. */
function choosePoint(
    points: RewindPoint[],
    wanted: string | undefined,
    next: (point: RewindPoint) => CommandPlan
): CommandPlan {
    if (wanted !== undefined) {
        const n = /^\d+$/.test(wanted) ? Number(wanted) : NaN;
        const point = points.find((p) => p.number === n);
        if (point) return next(point);
        return failure(
            `/rewind ${wanted}: choose a prompt from 1 to ${points.length} (/rewind lists them)`
        );
    }
    return {
        kind: "choose",
        title: "Rewind to before which prompt?",
        options: [...points].reverse().map((p) => ({
            id: String(p.number),
            label: `${p.number}. ${flat(p.text)}`,
            hint: codeHint(p),
        })),
        onChoice(id) {
            const point = points.find((p) => String(p.number) === id);
            return point ? next(point) : CANCELLED();
        },
    };
}

export const rewindCommand: CommandDefinition = {
    name: "rewind",
    description:
        "Take the code and/or the conversation back to before an earlier prompt (Esc Esc in an empty composer)",
    usage: "/rewind [N]",
    maxPositional: 1,
    plan(args, view) {
        if (!view.chat) {
            return failure(
                "/rewind works in the chat; from the shell: north rewind ID [--to N] [--code | --conversation] (north list shows the ids)"
            );
        }
        return submit({ type: "rewind_points" }, (listed) => {
            if (!listed.ok) return failure(listed.error);
            if (listed.points.length === 0) return result("No earlier prompt to rewind to yet.");
            return choosePoint(listed.points, args.positional[0], (point) =>
                chooseScope(point, listed.notTracked)
            );
        });
    },
};
