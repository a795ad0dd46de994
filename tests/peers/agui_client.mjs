// Drives an AG-UI server with the official client (@ag-ui/client's HttpAgent),
// as a real front end does: one agent, its whole history sent back each turn.
//
// Reads a scenario as JSON on stdin:
//   { "url": "...", "token": "...", "threadId": "t1", "state": {...},
//     "turns": [ { "add": [message, ...],   // appended to agent.messages first
//                  "resume": [entry, ...],  // RunAgentInput.resume; an entry's
//                     // "interruptId": {"pending": n} names agent.pendingInterrupts[n]
//                  "tools": [...], "context": [...], "forwardedProps": {...},
//                  "setState": {...} } ] }  // agent.setState before the run
// A message to add without an id gets one ("<role>-<turn>-<n>").
// Prints one JSON object: per turn the events received (after the client's
// own transform and verifyEvents), its result and newMessages, the error a
// run threw (verifier errors included: name, message, HTTP status and body),
// and agent.messages / agent.state / agent.pendingInterrupts after the run.
import { HttpAgent } from "@ag-ui/client";

async function readStdin() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return JSON.parse(Buffer.concat(chunks).toString("utf8"));
}

function errorOf(error) {
  return {
    name: error?.name ?? "Error",
    message: String(error?.message ?? error),
    ...(error?.status !== undefined && { status: error.status }),
    ...(error?.payload !== undefined && { payload: error.payload }),
  };
}

const scenario = await readStdin();
const agent = new HttpAgent({
  url: scenario.url,
  headers: { Authorization: `Bearer ${scenario.token}` },
  threadId: scenario.threadId ?? "thread-1",
  initialState: scenario.state ?? {},
});

const turns = [];
for (const [index, turn] of (scenario.turns ?? []).entries()) {
  (turn.add ?? []).forEach((message, n) =>
    agent.addMessage({ id: `${message.role}-${index}-${n}`, ...message }),
  );
  if (turn.setState !== undefined) agent.setState(turn.setState);
  const events = [];
  const report = {};
  try {
    const params = {};
    for (const key of ["resume", "tools", "context", "forwardedProps"]) {
      if (turn[key] !== undefined) params[key] = turn[key];
    }
    if (params.resume) {
      // ids the server made (a tool server's request card): named by position
      const pending = agent.pendingInterrupts ?? [];
      params.resume = params.resume.map((entry) =>
        typeof entry.interruptId === "object"
          ? { ...entry, interruptId: pending[entry.interruptId.pending]?.id ?? "none" }
          : entry,
      );
    }
    const { result, newMessages } = await agent.runAgent(params, {
      onEvent: ({ event }) => {
        events.push(event);
      },
    });
    Object.assign(report, { result: result ?? null, newMessages });
  } catch (error) {
    report.error = errorOf(error);
  }
  turns.push({
    ...report,
    events,
    messages: structuredClone(agent.messages),
    state: structuredClone(agent.state),
    pendingInterrupts: structuredClone(agent.pendingInterrupts ?? []),
  });
}
process.stdout.write(JSON.stringify({ turns }));
