import { oneLine } from "../../util/short-text";
import type {
    CommandContext,
    CommandDefinition,
    CommandResult,
    PickerOption,
    RewindPoint,
    RewindScope,
} from "../types";

const CANCELLED: CommandResult = { message: "Rewind cancelled; nothing was changed." };

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

/** Files changed since North changed them: overwrite (true), keep (false), or cancel (null). */
async function confirmOverwrite(ctx: CommandContext, changed: string[]): Promise<boolean | null> {
    const n = changed.length;
    const them = plural(n, "it", "them");
    const choice = await ctx.pick(
        `Overwrite ${n} ${plural(n, "file", "files")} changed since North changed ${them}?`,
        [
            { id: "overwrite", label: `Overwrite ${them}`, hint: changed.join(", ") },
            {
                id: "keep",
                label: `Keep ${them} as ${plural(n, "it is", "they are")}`,
                hint: "restore the other files only",
            },
        ],
        `Changed by something other than North: ${changed.join(", ")}`
    );
    return choice === null ? null : choice === "overwrite";
}

async function choosePoint(
    ctx: CommandContext,
    points: RewindPoint[],
    wanted: string | undefined
): Promise<RewindPoint | CommandResult | null> {
    if (wanted !== undefined) {
        const n = /^\d+$/.test(wanted) ? Number(wanted) : NaN;
        const point = points.find((p) => p.number === n);
        if (point) return point;
        return {
            message: `/rewind ${wanted}: choose a prompt from 1 to ${points.length} (/rewind lists them)`,
            isError: true,
        };
    }
    const newestFirst = [...points].reverse();
    const id = await ctx.pick(
        "Rewind to before which prompt?",
        newestFirst.map((p) => ({
            id: String(p.number),
            label: `${p.number}. ${flat(p.text)}`,
            hint: codeHint(p),
        }))
    );
    return points.find((p) => String(p.number) === id) ?? null;
}

export const rewindCommand: CommandDefinition = {
    name: "rewind",
    description:
        "Take the code and/or the conversation back to before an earlier prompt (Esc Esc in an empty composer)",
    usage: "/rewind [N]",
    maxPositional: 1,
    async execute(ctx, args) {
        if (!ctx.interactive) {
            return {
                message:
                    "/rewind works in the chat; from the shell: north rewind ID [--to N] [--code | --conversation] (north list shows the ids)",
                isError: true,
            };
        }
        const listed = await ctx.rewindPoints();
        if (!listed.ok) return { message: listed.error, isError: true };
        if (listed.points.length === 0) return { message: "No earlier prompt to rewind to yet." };
        const point = await choosePoint(ctx, listed.points, args.positional[0]);
        if (point === null) return CANCELLED;
        if (!("entryId" in point)) return point;

        const choice = await ctx.pick(
            `Before prompt ${point.number}: ${flat(point.text)}`,
            scopeOptions(point),
            scopeNote(point, listed.notTracked)
        );
        if (choice === null || choice === "cancel") return CANCELLED;
        const scope = choice as RewindScope;
        let overwriteChanged = false;
        if (scope !== "conversation" && point.changedSince.length > 0) {
            const overwrite = await confirmOverwrite(ctx, point.changedSince);
            if (overwrite === null) return CANCELLED;
            overwriteChanged = overwrite;
        }
        return ctx.rewind({ point, scope, overwriteChanged });
    },
};
