// The shapes the frontend shares with Go, named once. They come from the
// generated wailsjs models: when the bindings' Go types change, this is the
// one file that follows them. Everything else imports these names (through
// here or through api.ts), never wailsjs/go/models.
import { view } from '../../wailsjs/go/models';
import type { desktop, doctor, hosts, inbox, main, session, sessions, settings, template } from '../../wailsjs/go/models';

export type AppInfo = desktop.Info;
export type TemplateInfo = template.TemplateInfo;
export type Template = template.Template;
export type TemplateVariable = template.Variable;
export type ResolvedTemplate = template.Resolved;
export type TemplateProblem = template.ValidationError;
export type TemplateImport = main.TemplateImport;
export type TemplateExport = main.TemplateExport;
export type Settings = settings.Settings;
export type SettingsView = main.SettingsView;
export type DoctorReport = doctor.Report;
export type HostStatus = hosts.Status;
export type SessionInfo = session.Info;
export type SessionTranscript = main.SessionTranscript;
export type TranscriptItem = sessions.Item;
export type PermissionPrompt = sessions.Permission;
export type PermissionDecision = 'once' | 'always' | 'deny';
export type Run = view.Run;
export type Task = view.Task;
export type Worker = view.Worker;
export type PhaseAnswer = view.PhaseAnswer;
export type RunSnapshot = view.Snapshot;
export type CreateRunRequest = view.CreateRequest;
export type RunOverrides = view.Overrides;
export type Modifications = view.Modifications;
export type TaskEdit = view.TaskEdit;
export type NewTask = view.NewTask;
export type HistoryQuery = view.HistoryQuery;
export type HistoryPage = view.HistoryPage;
export type InboxItem = inbox.Item;
export type ReportExport = view.ReportExport;
export type FinalReport = view.FinalReport;
export type RunWorktree = view.Worktree;
export type TaskChanges = view.TaskChanges;
export type Applied = view.Applied;
export type FileDiff = view.FileDiff;
export type Remotes = view.Remotes;
export type Pushed = view.Pushed;
export type PullRequestResult = view.PullRequestResult;
export type WorkerAction = 'pause' | 'resume' | 'cancel' | 'retry';

// Builders: plain JSON made into the generated classes the bindings take.

/** The request that starts a run. */
export const createRunRequest = (source: Partial<CreateRunRequest>): CreateRunRequest => view.CreateRequest.createFrom(source);

/** The user's changes to a proposed task list. */
export const newModifications = (source: Partial<Modifications>): Modifications => view.Modifications.createFrom(source);

/** A run's snapshot as RunSnapshot returns it. */
export const snapshotFrom = (source: unknown): RunSnapshot => view.Snapshot.createFrom(source);

/** A task as the run bindings return it. */
export const taskFrom = (source: unknown): Task => view.Task.createFrom(source);
