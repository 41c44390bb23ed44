// The compatibility suite's first knex migration: tables with increments()
// ids (SERIAL), a foreign key and an index, as knex's users write them.
'use strict';

exports.up = async function up(knex) {
  await knex.schema.createTable('knex_customer', (t) => {
    t.increments('id');
    t.string('name', 80).notNullable().unique();
    t.timestamp('joined', { useTz: true });
  });
  await knex.schema.createTable('knex_order', (t) => {
    t.increments('id');
    t.integer('customer_id').notNullable().references('id').inTable('knex_customer');
    t.decimal('total', 8, 2).notNullable();
    t.index(['customer_id']);
  });
};

exports.down = async function down(knex) {
  await knex.schema.dropTable('knex_order');
  await knex.schema.dropTable('knex_customer');
};
