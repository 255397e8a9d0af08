import type { LiveObjects, WriteContext } from '../inspect/liveObjects.js';
import { DqError, type JsonObject } from '../model/index.js';
import { refuseUnwritableName } from './definitionNames.js';
import { bodyViolation, refuseViolations } from './specValidation.js';

/**
 * Data dictionaries as DQOps's `dictionaries` group serves them: objects of kind dictionary (the
 * `dictionaries/<name>.csv` files), named by their file name, whose text is kept as it was written (a run reads
 * its entries with `dictionaryEntries`). A create names the dictionary in its body; an update may repeat the
 * name of its path, never another one (DQOps refuses a rename the same way).
 */
export interface DataDictionaryListModel {
  dictionary_name: string;
  can_edit: boolean;
  can_access_dictionary: boolean;
}

export interface DataDictionaryModel {
  dictionary_name: string;
  file_content: string;
}

function contentOf(attachments: JsonObject): string {
  return typeof attachments.file_content === 'string' ? attachments.file_content : '';
}

/** Every dictionary, sorted by name. */
export async function allDictionaries(objects: LiveObjects, canEdit: boolean): Promise<DataDictionaryListModel[]> {
  const dictionaries = await objects.list('dictionary');
  return dictionaries
    .map((d) => d.name)
    .sort()
    .map((name) => ({ dictionary_name: name, can_edit: canEdit, can_access_dictionary: true }));
}

/** A dictionary with its CSV text; 404 when there is none of that name. */
export async function dictionaryOf(objects: LiveObjects, name: string): Promise<DataDictionaryModel> {
  const found = await objects.get('dictionary', name);
  if (!found) throw new DqError('NOT_FOUND', `dictionary ${JSON.stringify(name)} not found`);
  return { dictionary_name: name, file_content: contentOf(found.attachments) };
}

function refuseWithoutContent(model: JsonObject): string {
  if (typeof model.file_content !== 'string') {
    refuseViolations([bodyViolation(['file_content'], 'is required: the text of the CSV file', 'required')], 'dictionary model');
  }
  return model.file_content as string;
}

/** A dictionary named in the body (409 when one has the name). */
export async function createDictionary(objects: LiveObjects, model: JsonObject, writer: WriteContext): Promise<string> {
  const name = typeof model.dictionary_name === 'string' ? model.dictionary_name : '';
  if (name === '') refuseViolations([bodyViolation(['dictionary_name'], 'is required: the file name of the dictionary, e.g. countries.csv', 'required')], 'dictionary model');
  refuseUnwritableName('dictionary', name);
  const content = refuseWithoutContent(model);
  await objects.create('dictionary', name, {}, writer, { file_content: content });
  return name;
}

/** Replaces a dictionary's text (404 when there is none; 400 when the body names another dictionary). */
export async function updateDictionary(objects: LiveObjects, name: string, model: JsonObject, writer: WriteContext): Promise<void> {
  if (typeof model.dictionary_name === 'string' && model.dictionary_name !== name) {
    refuseViolations([bodyViolation(['dictionary_name'], `must be the dictionary of the path, ${JSON.stringify(name)}: a dictionary cannot be renamed`)], 'dictionary model');
  }
  const content = refuseWithoutContent(model);
  await objects.update('dictionary', name, writer, () => ({ spec: {}, attachments: { file_content: content } }));
}

export async function deleteDictionary(objects: LiveObjects, name: string, writer: WriteContext): Promise<void> {
  await objects.delete('dictionary', name, writer);
}
