import { useEffect, useRef } from "react";
import { useStdin } from "ink";
import { type KeyEvent, parseInput } from "../input/keys";

/**
 * Key events from Ink's input stream, named by `parseInput` (newline vs
 * Enter, bracketed paste markers). Several components may listen at once;
 * each sees every event while `active`.
 */
export function useRawInput(handler: (event: KeyEvent) => void, active = true): void {
    const { internal_eventEmitter: emitter, setRawMode, isRawModeSupported } = useStdin();
    const handlerRef = useRef(handler);
    handlerRef.current = handler;

    useEffect(() => {
        if (!active || !isRawModeSupported) return;
        setRawMode(true);
        return () => setRawMode(false);
    }, [active, isRawModeSupported, setRawMode]);

    useEffect(() => {
        if (!active) return;
        const onInput = (input: string): void => {
            for (const event of parseInput(input)) handlerRef.current(event);
        };
        emitter.on("input", onInput);
        return () => {
            emitter.off("input", onInput);
        };
    }, [active, emitter]);
}
