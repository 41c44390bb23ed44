// The second migration: a column added when the table exists (hasTable,
// hasColumn: what migrations check before they change a schema).
'use strict';

exports.up = async function up(knex) {
  if (await knex.schema.hasTable('knex_customer') && !(await knex.schema.hasColumn('knex_customer', 'note'))) {
    await knex.schema.alterTable('knex_customer', (t) => { t.text('note'); });
  }
};

exports.down = async function down(knex) {
  await knex.schema.alterTable('knex_customer', (t) => { t.dropColumn('note'); });
};
