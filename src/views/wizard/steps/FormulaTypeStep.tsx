/**
 * Step 2, formula type: what the formula reads and writes. The source's object (for a file-upload
 * source, the uploaded file its sample comes from; for a folder, a file or a name pattern; for
 * Salesforce, optionally a report, checked before it is kept) and the destination's object.
 * Changing either on a formula with mapping, matching or routing asks first (SPEC.md section 4).
 */
import { useEffect, useRef, useState } from 'react';
import { useActorRef, useSelector } from '@xstate/react';
import { waitFor } from 'xstate';
import { Alert, Button, Checkbox, Fieldset, Group, Stack, Text, TextInput } from '@mantine/core';
import { ADD_DATE_FILTER, INVALID_REPORT_ID, MISSING_ACCESS } from '../../../domain/connectionErrors.ts';
import { filePatternProblem } from '../../../domain/connectors/filePattern.ts';
import type { SystemId } from '../../../domain/connectors/types.ts';
import { SAMPLE_ROWS } from '../../../domain/upload.ts';
import { reportCheckMachine, type ReportCheckRef } from '../../../machines/reportCheck.ts';
import type { StepEditorChildren, StepEditorRef } from '../../../machines/stepEditor.ts';
import type { FormulaTypeDraft } from '../../../machines/wizardSteps.ts';
import { StepActions, useStepAnnouncements, type StepProps } from '../step.tsx';
import { ObjectField } from './ObjectField.tsx';
import { systemLabel, UploadSampleButton, uploadAsObject, WipeConfirmation } from './shared.tsx';

/** Systems whose objects are the files of a folder; a name pattern picks several. */
const FOLDER_SYSTEMS: SystemId[] = ['sftp', 'flat-file'];
/** the choice of a pattern: no listed object has this name, since files end in .csv, .xlsx or .xls */
const PATTERN = '__pattern__';
/** a file name with * for any characters; no folders */
const FILE_PATTERN = /^[^/\\\u0000-\u001f]{1,200}$/;
export const PATTERN_MESSAGE = 'Enter a file name, with * for any characters (for example donations-*.csv).';

const REPORT_HINTS: Record<string, string> = {
  [INVALID_REPORT_ID]: 'No report has this id. Copy it from the report\'s address (it starts with 00O).',
  [ADD_DATE_FILTER]: 'Give the report a standard date filter in Salesforce, then check it again.',
  [MISSING_ACCESS]: 'The connected Salesforce user cannot read this report. Share it, or connect as a user who can.',
};

export function FormulaTypeStep(props: StepProps & { reportCheck?: typeof reportCheckMachine }) {
  if (!props.editor) return null;
  return props.reportCheck
    ? <WithOwnReportCheck {...props} editor={props.editor} reportCheck={props.reportCheck} />
    : <WithEditorsReportCheck {...props} editor={props.editor} />;
}

/** tests hand in the report check's machine (a guard broken on purpose, a fake call) */
function WithOwnReportCheck(props: StepProps & { editor: StepEditorRef; reportCheck: typeof reportCheckMachine }) {
  const source = props.formula.sourceDataSource;
  const report = useActorRef(props.reportCheck, { input: { dataSourceId: source?.dataSourceId ?? '', savedReportId: source?.settings.reportId ?? '' } });
  return <FormulaTypeForm {...props} report={report} />;
}

/** the report check the step's editor runs, over the wizard's calls */
function WithEditorsReportCheck(props: StepProps & { editor: StepEditorRef }) {
  const report = useSelector(props.editor, (s) => (s.children as StepEditorChildren).reportCheck);
  return report ? <FormulaTypeForm {...props} report={report} /> : null;
}

/** The ends' objects (and a Salesforce report) as the user chooses them; the step editor saves them. */
function FormulaTypeForm(props: StepProps & { editor: StepEditorRef; report: ReportCheckRef }) {
  const { formula, canEdit, onBack, onGoTo, editor, report } = props;
  const source = formula.sourceDataSource;
  const destination = formula.firstDestinationDataSource;
  const folder = !!source && FOLDER_SYSTEMS.includes(source.system);
  const salesforce = source?.system === 'salesforce';
  const fileUpload = source?.system === 'file-upload';

  const [sourceObject, setSourceObject] = useState(source?.object ?? '');
  // a saved pattern shows as a pattern (a single file name is one of the listed objects)
  const [patternMode, setPatternMode] = useState(folder && !!source?.object && source.object !== '*' && source.object.includes('*'));
  const [pattern, setPattern] = useState(patternMode ? source?.object ?? '' : '');
  const [destinationObject, setDestinationObject] = useState(destination?.object ?? '');
  const savedReport = source?.settings.reportId ?? '';
  const [useReport, setUseReport] = useState(salesforce && !!savedReport);
  const [reportId, setReportId] = useState(savedReport);
  const checking = useSelector(report, (s) => s.matches('checking'));
  const checked = useSelector(report, (s) => s.context);
  const reportValid = useSelector(report, (s) => s.matches('valid'));
  const reportInvalid = useSelector(report, (s) => s.matches('invalid'));
  const [errors, setErrors] = useState<Record<string, string>>({});

  const chosenSource = patternMode ? pattern.trim() : sourceObject;
  const chosenReport = useReport ? reportId.trim() : '';
  // each change of what is chosen is the editor's draft
  const draftKey = JSON.stringify({ source: chosenSource, destination: destinationObject, report: chosenReport } satisfies FormulaTypeDraft);
  const opened = useRef(true);
  useEffect(() => {
    if (opened.current) { opened.current = false; return; }
    editor.send({ type: 'draft.change', draft: JSON.parse(draftKey) as FormulaTypeDraft });
  }, [draftKey, editor]);
  const saving = useSelector(editor, (s) => s.matches('saving'));
  const fieldErrors = useSelector(editor, (s) => s.context.fieldErrors);
  const wipes = useSelector(editor, (s) => (s.matches('confirmingWipe') ? s.context.wipes : null));
  // each end's objects, as its picker in the step's editor reads them
  const sourceObjects = useSelector(editor, (s) => (s.children as StepEditorChildren).sourceObjects);
  const destinationObjects = useSelector(editor, (s) => (s.children as StepEditorChildren).destinationObjects);
  useStepAnnouncements(editor);

  if (!source || !destination || !sourceObjects || !destinationObjects) {
    return (
      <Alert color="yellow" role="status" title="Choose the data sources first">
        <Text size="sm">The formula needs a source and a destination before their objects can be chosen.</Text>
        <Button size="xs" mt="sm" onClick={() => onGoTo('data-sources')}>Go to Data sources</Button>
      </Alert>
    );
  }

  /** Checks the report id (leaving the field and pressing Check report ask once). Answers whether it may be kept. */
  async function checkReport(id: string): Promise<boolean> {
    report.send({ type: 'report.check', id });
    const done = await waitFor(report, (s) => !s.matches('checking'));
    return done.matches('valid') && done.context.id === id;
  }

  async function save() {
    const found: Record<string, string> = {};
    if (patternMode && !FILE_PATTERN.test(pattern.trim())) found.pattern = PATTERN_MESSAGE;
    else if (patternMode && filePatternProblem(pattern.trim())) found.pattern = filePatternProblem(pattern.trim())!;
    else if (!chosenSource) found.source = fileUpload ? 'Choose or upload a file' : 'Choose an object';
    if (!destinationObject) found.destination = 'Choose an object';
    setErrors(found);
    if (Object.keys(found).length) return;
    if (chosenReport && !(await checkReport(chosenReport))) return;

    editor.send({ type: 'step.save' });
  }

  const reportError = reportInvalid && checked.id === reportId.trim() ? checked.message ?? undefined : undefined;
  const shown = { ...fieldErrors, ...errors };

  return (
    <form onSubmit={(e) => { e.preventDefault(); void save(); }} noValidate aria-label="Formula type">
      <Stack>
        <Fieldset legend={`Source: ${source.displayName} (${systemLabel(source.system)})`}>
          <Stack>
            <ObjectField
              label={fileUpload ? 'Sample file' : 'Source object'}
              description={fileUpload
                ? `Mapping reads the headers and first ${SAMPLE_ROWS} rows of this upload; later files of this formula must have the same headers.`
                : folder ? 'One file, every file, or the files whose names match a pattern; files already read are read again only when they change.' : undefined}
              picker={sourceObjects} displayName={source.displayName} canEdit={canEdit}
              value={patternMode ? PATTERN : sourceObject}
              onChange={(value) => {
                setPatternMode(value === PATTERN);
                if (value !== PATTERN) setSourceObject(value);
                setErrors((e) => ({ ...e, source: '', pattern: '' }));
              }}
              error={shown.source || undefined}
              extra={folder ? [{ value: PATTERN, label: 'Files whose names match a pattern…' }] : []}
              // a file just uploaded is listed and chosen
              upload={fileUpload ? (add) => (
                <UploadSampleButton
                  disabled={!canEdit}
                  onUploaded={(u) => { add(uploadAsObject(u)); setSourceObject(u.id); setErrors((e) => ({ ...e, source: '' })); }}
                />
              ) : undefined}
            >
              {patternMode && (
                <TextInput
                  label="File name pattern" required value={pattern} placeholder="donations-*.csv" disabled={!canEdit}
                  description="* stands for any characters; only .csv, .xlsx and .xls files are read."
                  onChange={(e) => setPattern(e.currentTarget.value)} error={shown.pattern || undefined}
                />
              )}
            </ObjectField>
            {salesforce && (
              <Stack gap="xs">
                <Checkbox
                  label="Read the rows of a report" checked={useReport} disabled={!canEdit}
                  description="The report needs a standard date filter; each pull reads the rows changed since the last one."
                  onChange={(e) => setUseReport(e.currentTarget.checked)}
                />
                {useReport && (
                  <Group align="flex-start" gap="xs" wrap="wrap">
                    <TextInput
                      label="Report ID" required value={reportId} placeholder="00O5g00000AbCdE" disabled={!canEdit}
                      onChange={(e) => setReportId(e.currentTarget.value)}
                      onBlur={() => { if (reportId.trim()) void checkReport(reportId.trim()); }}
                      error={reportError}
                      description={reportError ? REPORT_HINTS[reportError] : 'The id in the report\'s address in Salesforce.'}
                      style={{ flex: 1, minWidth: 200 }}
                    />
                    <Button
                      variant="default" mt={24} disabled={!canEdit || !reportId.trim()}
                      loading={checking} onClick={() => void checkReport(reportId.trim())}
                    >
                      Check report
                    </Button>
                  </Group>
                )}
                {useReport && reportValid && checked.id === reportId.trim() && checked.name && (
                  <Text size="sm" role="status" c="green">
                    {checked.name}: rows are read by {checked.dateFilterColumn}.
                  </Text>
                )}
              </Stack>
            )}
          </Stack>
        </Fieldset>
        <Fieldset legend={`Destination: ${destination.displayName} (${systemLabel(destination.system)})`}>
          <ObjectField
            label="Destination object" picker={destinationObjects} displayName={destination.displayName}
            canEdit={canEdit} value={destinationObject}
            onChange={(value) => { setDestinationObject(value); setErrors((e) => ({ ...e, destination: '' })); }}
            error={shown.destination || undefined}
          />
        </Fieldset>
        <StepActions
          onBack={onBack}
          onSave={() => { if (canEdit) void save(); else props.onSaved(); }}
          saving={saving || checking}
          label={canEdit ? 'Save and continue' : 'Next'}
        />
      </Stack>
      <WipeConfirmation wipes={wipes} onConfirm={() => editor.send({ type: 'wipe.confirm' })} onCancel={() => editor.send({ type: 'wipe.cancel' })} />
    </form>
  );
}
