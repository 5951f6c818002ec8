/**
 * process_stop: ends a background process: SIGTERM to its group, SIGKILL
 * after a grace period, then whatever it started that still carries its
 * owner mark (daemons that left the group). No approval: stopping is what
 * the user's consent to start it already covers, and it only ends work.
 */
import { str } from "./display-text";
import { isRecord } from "./digest-text";
import { processFields, processToolError } from "./processes/tool-errors";
import type { ShellService } from "./shell-service";
import { type InputOf, toolInput } from "./tool-input";
import { type ToolDefinition, toolError, toolOk } from "./types";

export const processStopInput = toolInput((z) =>
    z.object({ id: z.string({ error: 'id must be a process id such as "p1"' }) })
);

export type ProcessStopInput = InputOf<typeof processStopInput>;

export function createProcessStopTool(
    service: ShellService
): ToolDefinition<ProcessStopInput, Record<string, unknown>> {
    return {
        name: "process_stop",
        description: "Stop a background process and everything it started.",
        input: processStopInput,
        approvalPolicy: "none",
        readOnly: false,
        // Stopping a process is a change: plan mode keeps it for after the plan.
        changesUnreviewed: true,
        // Its processes come from shell_run: where that is not offered, neither is this.
        offeredWith: "shell_run",
        display: {
            title: (args) => {
                const id = str(args.id);
                return id ? `Stopping ${id}` : undefined;
            },
            resultDetail: (data) => {
                if (!isRecord(data)) return [];
                const how =
                    typeof data.signal === "string" ? data.signal : `exit ${String(data.exitCode)}`;
                return [`stopped (${how})`];
            },
        },
        async execute(input) {
            const table = service.processes;
            if (!table)
                return toolError("io_error", "Background processes are not available here.");
            try {
                const before = table.get(input.id);
                const info = await table.stop(input.id);
                const result = processFields(info);
                if (before?.state === "exited") result.note = "It had already exited.";
                return toolOk(result);
            } catch (error) {
                return processToolError(error, "The process could not be stopped");
            }
        },
    };
}
