import { useEffect, useState } from "react";
import { useStdout } from "ink";

export interface TerminalSize {
    rows: number;
    columns: number;
}

const sizeOf = (stdout: NodeJS.WriteStream): TerminalSize => ({
    rows: stdout.rows || 24,
    columns: stdout.columns || 80,
});

/** The terminal's rows and columns, updated on every resize. */
export function useTerminalSize(): TerminalSize {
    const { stdout } = useStdout();
    const [size, setSize] = useState(() => sizeOf(stdout));
    useEffect(() => {
        const onResize = (): void => {
            const next = sizeOf(stdout);
            setSize((prev) =>
                prev.rows === next.rows && prev.columns === next.columns ? prev : next
            );
        };
        stdout.on("resize", onResize);
        return () => {
            stdout.off("resize", onResize);
        };
    }, [stdout]);
    return size;
}
