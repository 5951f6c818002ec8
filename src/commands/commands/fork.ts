import { type CommandDefinition, failure, shown, submit } from "../types";

export const forkCommand: CommandDefinition = {
    name: "fork",
    description:
        "Continue in a copy of this conversation (up to just before prompt N); the original stays as it was",
    usage: "/fork [N]",
    maxPositional: 1,
    plan(args, view) {
        if (!view.chat) {
            return failure(
                "/fork works in the chat; print mode continues in a copy with --fork-session and --resume ID or --continue"
            );
        }
        const wanted = args.positional[0];
        const fork = (promptNumber?: number) =>
            submit({ type: "fork", promptNumber }, ({ promptText: _draft, ...outcome }) =>
                shown(outcome)
            );
        if (wanted === undefined) return fork();
        const n = /^\d+$/.test(wanted) ? Number(wanted) : NaN;
        if (!(n >= 1)) {
            return failure(
                `/fork ${wanted}: give the number of a prompt (1 is the first; /rewind lists them)`
            );
        }
        return fork(n);
    },
};
